package dev.durable.dashboard.app;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The application of the dashboard's tests: the parcel machine, the starter, Spring MVC and the dashboard. Spring
 * Security is on the tests' class path (for SecuredDashboardTest): here it lets every request through, as an
 * application without it would.
 */
@SpringBootApplication
public class DashboardTestApplication {

    @Bean
    SecurityFilterChain everyoneMayPass(HttpSecurity http) throws Exception {
        return http.authorizeHttpRequests(requests -> requests.anyRequest().permitAll())
                .csrf(csrf -> csrf.disable())
                .build();
    }
}
