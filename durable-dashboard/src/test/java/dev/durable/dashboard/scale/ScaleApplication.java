package dev.durable.dashboard.scale;

import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.Step;
import java.util.List;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The application {@link DashboardScale} measures: the dashboard over the machines of fill.sql that a node runs
 * (parcel, order, line; report is run by no node, as a machine of another service), whose state type reads the
 * stored states whole, so the deploy check passes. Every request passes, as in the dashboard's tests. The steps do
 * what their names say only roughly: the check measures reads, and no row of these machines is due while it runs.
 */
@SpringBootApplication
public class ScaleApplication {

    /** The state of every machine here, as fill.sql writes it. */
    public record Order(String name, String customer, List<Line> lines, String note) {
    }

    public record Line(String sku, int quantity) {
    }

    @DurableMachine(name = "parcel", queue = "parcels")
    static class Parcels {

        @Step(value = "pack", initial = true)
        Outcome pack(Order parcel) {
            return Outcome.next("label", parcel);
        }

        @Step("label")
        Outcome label(Order parcel) {
            return Outcome.next("await-pickup", parcel);
        }

        @Step("await-pickup")
        Outcome awaitPickup(Order parcel, StepContext ctx) {
            return ctx.awaited("pickup").map(signal -> Outcome.next("deliver", parcel))
                    .orElseGet(() -> Outcome.await("pickup", parcel));
        }

        @Step("deliver")
        Outcome deliver(Order parcel) {
            return Outcome.done("delivered " + parcel.name());
        }
    }

    @DurableMachine(name = "order", queue = "orders")
    static class Orders {

        @Step(value = "reserve", initial = true)
        Outcome reserve(Order order) {
            return Outcome.next("await-payment", order);
        }

        @Step("await-payment")
        Outcome awaitPayment(Order order, StepContext ctx) {
            return ctx.awaited("payment").map(paid -> Outcome.next("ship", order))
                    .orElseGet(() -> Outcome.await("payment", order));
        }

        @Step("ship")
        Outcome ship(Order order) {
            return Outcome.done("shipped " + order.name());
        }
    }

    @DurableMachine(name = "line", queue = "orders")
    static class Lines {

        @Step(value = "pick", initial = true)
        Outcome pick(Order line, StepContext ctx) {
            return ctx.awaited("stock").map(stock -> Outcome.next("pack", line))
                    .orElseGet(() -> Outcome.await("stock", line));
        }

        @Step("pack")
        Outcome pack(Order line) {
            return Outcome.done("packed " + line.name());
        }
    }

    @Bean
    SecurityFilterChain everyoneMayPass(HttpSecurity http) throws Exception {
        return http.authorizeHttpRequests(requests -> requests.anyRequest().permitAll())
                .csrf(csrf -> csrf.disable())
                .build();
    }
}
