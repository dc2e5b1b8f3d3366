package dev.durable.sample.database;

import dev.durable.sample.SampleProperties;
import java.io.IOException;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * With no {@code spring.datasource.url}, the sample runs on a {@link LocalPostgres} whose data survives restarts
 * ({@code sample.postgres.data-dir}); Spring Boot builds its {@code DataSource} from the connection details below.
 * The server is stopped after the {@code DataSource} is closed (it depends on the server's bean).
 */
@Configuration(proxyBeanMethods = false)
@Conditional(EmbeddedPostgresConfiguration.NoDataSourceUrl.class)
class EmbeddedPostgresConfiguration {

    @Bean
    LocalPostgres localPostgres(SampleProperties properties) throws IOException {
        return LocalPostgres.start(properties.postgres().dataDir());
    }

    @Bean
    JdbcConnectionDetails localPostgresConnectionDetails(LocalPostgres postgres) {
        String url = postgres.jdbcUrl();
        return new JdbcConnectionDetails() {
            @Override
            public String getUsername() {
                return "postgres";
            }

            @Override
            public String getPassword() {
                return "";
            }

            @Override
            public String getJdbcUrl() {
                return url;
            }
        };
    }

    static class NoDataSourceUrl extends SpringBootCondition {

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return context.getEnvironment().containsProperty("spring.datasource.url")
                    ? ConditionOutcome.noMatch("spring.datasource.url is set")
                    : ConditionOutcome.match("no spring.datasource.url: using an embedded PostgreSQL");
        }
    }
}
