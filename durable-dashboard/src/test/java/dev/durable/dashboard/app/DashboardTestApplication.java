package dev.durable.dashboard.app;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The application of the dashboard's tests: the parcel machine, the starter, Spring MVC and the dashboard. */
@SpringBootApplication
public class DashboardTestApplication {
}
