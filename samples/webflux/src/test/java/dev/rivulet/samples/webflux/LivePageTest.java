package dev.rivulet.samples.webflux;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The live page in a real headless Chromium (Debian's {@code chromium} and {@code chromium-driver}, which
 * {@code bin/test} installs): it follows the stats stream while the load generator writes and reads blocks, its
 * numbers agree with what {@code /actuator/prometheus} says, and a screenshot is saved to
 * {@code samples/webflux/target/webflux-live-page.png}.
 */
class LivePageTest {

    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

    private static ConfigurableApplicationContext app;
    private static ChromeDriver browser;

    @BeforeAll
    static void start() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "no headless browser here: apt-get install chromium chromium-driver (bin/test does when root)");
        app = new SpringApplicationBuilder(WebfluxSampleApplication.class).run("--blocks.role=both",
                "--blocks.address=local://page-test", "--server.port=0", "--blocks.load.enabled=true",
                "--blocks.load.block-size=256KB", "--blocks.load.interval=10ms");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--window-size=1000,900",
                "--user-data-dir=" + Files.createTempDirectory("rivulet-chromium"));
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (app != null) {
            app.close();
        }
    }

    @Test
    void thePageFollowsTheServiceAndAgreesWithItsMetrics() throws Exception {
        browser.get("http://127.0.0.1:" + Apps.port(app) + "/");
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(30));
        wait.until(d -> updates() >= 4 && number("blocksStored") > 0);
        assertThat(browser.findElement(By.id("status")).getText()).isEqualTo("up");

        // The load generator writes its blocks under 16 ids over and over: blocks stored is those 16, not the PUTs.
        wait.until(d -> number("blocksStored") == 16);
        assertThat(prometheus("rivulet_webflux_blocks")).isEqualTo(16);
        assertThat(prometheus("rivulet_webflux_blocks_stored_total")).as("PUTs").isGreaterThan(16);
        assertThat(Double.parseDouble(browser.findElement(By.id("writeRate")).getText())).isPositive();

        Object drawn = ((JavascriptExecutor) browser).executeScript(
                "const c = document.getElementById('rates');"
                        + "const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
                        + "let n = 0; for (let i = 3; i < px.length; i += 4) { if (px[i] > 0) n++; } return n;");
        assertThat(((Number) drawn).longValue()).as("pixels the throughput chart drew").isGreaterThan(500);
        wait.until(d -> linePixels("#1565c0") > 100 && linePixels("#e65100") > 100);

        File shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
        Path saved = Path.of("target", "webflux-live-page.png");
        Files.copy(shot.toPath(), saved, StandardCopyOption.REPLACE_EXISTING);
        assertThat(Files.size(saved)).isGreaterThan(10_000);
    }

    /**
     * Pixels of the throughput chart's plot area (below its legend) drawn in {@code colour}, or nearly: the read and
     * the write line must both show, also where their values are the same.
     */
    private static long linePixels(String colour) {
        Object n = ((JavascriptExecutor) browser).executeScript(
                "const c = document.getElementById('rates'); const want = arguments[0];"
                        + "const rgb = [1, 3, 5].map(i => parseInt(want.substring(i, i + 2), 16));"
                        + "const px = c.getContext('2d').getImageData(0, 20, c.width, c.height - 20).data;"
                        + "let n = 0; for (let i = 0; i < px.length; i += 4) {"
                        + "  if (px[i + 3] > 200 && Math.abs(px[i] - rgb[0]) < 40 && Math.abs(px[i + 1] - rgb[1]) < 40"
                        + "      && Math.abs(px[i + 2] - rgb[2]) < 40) n++; }"
                        + "return n;", colour);
        return ((Number) n).longValue();
    }

    private static int updates() {
        String v = browser.findElement(By.tagName("body")).getDomAttribute("data-updates");
        return v == null ? 0 : Integer.parseInt(v);
    }

    private static double number(String id) {
        String text = browser.findElement(By.id(id)).getText();
        try {
            return Double.parseDouble(text);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static double prometheus(String name) {
        LockSupport.parkNanos(1_000_000);
        String text = Apps.client(app).get().uri("/actuator/prometheus").exchange().expectBody(String.class)
                .returnResult().getResponseBody();
        return text.lines().filter(l -> l.startsWith(name + " ") || l.startsWith(name + "{"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }
}
