package dev.rivulet.spring.boot.autoconfigure;

import org.springframework.boot.test.context.SpringBootTest;

/** The application served over the in-JVM local transport. */
@SpringBootTest(classes = AbstractRivuletApplicationTest.GreetingApplication.class,
        properties = "rivulet.server.address=local://boot-application-test")
class RivuletApplicationOverLocalTest extends AbstractRivuletApplicationTest {
}
