package dev.durable.dashboard;

import dev.durable.boot.actuate.DurableTargets;
import dev.durable.boot.autoconfigure.DurableAutoConfiguration;
import dev.durable.boot.autoconfigure.DurableEndpointProperties;
import dev.durable.runtime.DurableEngine;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.web.servlet.config.annotation.ResourceHandlerRegistry;
import org.springframework.web.servlet.config.annotation.ViewControllerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Serves the dashboard when the application runs on Spring MVC, has a durable engine, and sets
 * {@code durable.dashboard.enabled=true} (docs/DESIGN.md, "Dashboard"): its pages and the diagram library's WebJar
 * under {@code durable.dashboard.path}, and their JSON from {@link DashboardController},
 * {@link ClusterController} and {@link ScheduleController}.
 */
@AutoConfiguration(after = DurableAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnBooleanProperty(name = "durable.dashboard.enabled")
@ConditionalOnBean(DurableEngine.class)
@EnableConfigurationProperties({DashboardProperties.class, DurableEndpointProperties.class})
public final class DashboardAutoConfiguration {

    /** Where the pages live in the jar. */
    static final String PAGES = "classpath:/dev/durable/dashboard/pages/";
    /** Where WebJars keep their files: the diagram's library is served from there, under the dashboard's path. */
    static final String WEBJARS = "classpath:/META-INF/resources/webjars/";

    DashboardAutoConfiguration() {
    }

    @Bean
    DashboardAccess durableDashboardAccess(DashboardProperties properties, DurableEndpointProperties endpoint) {
        return new DashboardAccess(properties.isReadOnly(), properties.getWriteRoles(), endpoint.getShowValues(),
                endpoint.getRoles());
    }

    @Bean
    DashboardController durableDashboardController(DurableEngine engine, DashboardAccess access,
            DashboardProperties properties) {
        return new DashboardController(engine, access, properties);
    }

    @Bean
    ClusterController durableDashboardClusterController(DurableEngine engine,
            ObjectProvider<DurableTargets> targets) {
        return new ClusterController(engine, targets.getIfAvailable());
    }

    @Bean
    DashboardErrors durableDashboardErrors() {
        return new DashboardErrors();
    }

    @Bean
    ScheduleController durableDashboardScheduleController(DurableEngine engine, DashboardAccess access) {
        return new ScheduleController(engine, access);
    }

    @Bean
    WebMvcConfigurer durableDashboardPages(DashboardProperties properties) {
        String path = properties.getPath();
        return new WebMvcConfigurer() {
            @Override
            public void addResourceHandlers(ResourceHandlerRegistry registry) {
                registry.addResourceHandler(path + "/webjars/**").addResourceLocations(WEBJARS);
                registry.addResourceHandler(path + "/**").addResourceLocations(PAGES);
            }

            @Override
            public void addViewControllers(ViewControllerRegistry registry) {
                registry.addRedirectViewController(path, path + "/");
                registry.addViewController(path + "/").setViewName("forward:" + path + "/index.html");
            }
        };
    }
}
