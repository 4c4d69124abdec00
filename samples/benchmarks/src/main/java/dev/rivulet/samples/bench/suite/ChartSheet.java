package dev.rivulet.samples.bench.suite;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.internal.chartpart.Chart;

import javax.imageio.ImageIO;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * One PNG: a title, a note (the machine, what the values are) and XChart panels side by side. XChart draws one
 * title per chart and no subtitle, so the sheet draws the common header itself.
 */
final class ChartSheet {

    static final int PANEL_WIDTH = 640;
    static final int PANEL_HEIGHT = 560;
    static final int HEADER_HEIGHT = 64;

    private ChartSheet() {
    }

    /** The size of a sheet of {@code panels} panels: {width, height}. */
    static int[] size(int panels) {
        return new int[]{PANEL_WIDTH * panels, HEADER_HEIGHT + PANEL_HEIGHT};
    }

    static void write(Path file, String title, String note, List<? extends Chart<?, ?>> panels) throws IOException {
        int[] size = size(panels.size());
        BufferedImage sheet = new BufferedImage(size[0], size[1], BufferedImage.TYPE_INT_RGB);
        Graphics2D g = sheet.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, size[0], size[1]);
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 20));
            g.drawString(title, 16, 28);
            g.setColor(new Color(70, 70, 70));
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 14));
            g.drawString(note, 16, 52);
            for (int i = 0; i < panels.size(); i++) {
                g.drawImage(BitmapEncoder.getBufferedImage(panels.get(i)), i * PANEL_WIDTH, HEADER_HEIGHT, null);
            }
        } finally {
            g.dispose();
        }
        Files.createDirectories(file.getParent());
        if (!ImageIO.write(sheet, "png", file.toFile())) {
            throw new IOException("no PNG writer for " + file);
        }
    }
}
