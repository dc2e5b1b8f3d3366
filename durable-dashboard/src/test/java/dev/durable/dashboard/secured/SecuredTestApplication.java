package dev.durable.dashboard.secured;

import dev.durable.dashboard.app.Parcels;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The parcel machine behind Spring Security, as the README shows it: the dashboard's path needs the role OPS, its
 * writes (durable.dashboard.write-roles) OPS_WRITE; CSRF protection on. "viewer" has OPS, "operator" both.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(Parcels.class)
public class SecuredTestApplication {

    @Bean
    SecurityFilterChain dashboardNeedsOps(HttpSecurity http) throws Exception {
        return http.authorizeHttpRequests(requests -> requests.requestMatchers("/durable/**").hasRole("OPS")
                        .anyRequest().denyAll())
                .httpBasic(Customizer.withDefaults())
                .build();
    }

    @Bean
    InMemoryUserDetailsManager users() {
        return new InMemoryUserDetailsManager(
                User.withUsername("viewer").password("{noop}v").roles("OPS").build(),
                User.withUsername("operator").password("{noop}o").roles("OPS", "OPS_WRITE").build());
    }
}
