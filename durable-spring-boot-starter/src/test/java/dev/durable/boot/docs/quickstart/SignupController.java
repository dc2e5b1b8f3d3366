package dev.durable.boot.docs.quickstart;

import dev.durable.DurableClient;
import dev.durable.SignalResult;
import dev.durable.StartOptions;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The starter's README, section "Quick start": one start and one signal, as the README shows them. */
@RestController
class SignupController {

    private final DurableClient durable;

    SignupController(DurableClient durable) {
        this.durable = durable;
    }

    @PostMapping("/signups")                             // one sign-up per address at a time
    long signUp(@RequestParam String email) {
        return durable.start(Signup.class, new Account(email, false),
                StartOptions.defaults().uniqueKey("signup:" + email)).id();
    }

    @PostMapping("/signups/{id}/confirm")                // the link in the mail; a second click changes nothing
    ResponseEntity<Void> confirm(@PathVariable long id) {
        SignalResult result = durable.signal(id, "confirmed", null, "confirm:" + id);
        return result.isRefused() ? ResponseEntity.status(HttpStatus.GONE).build()
                                  : ResponseEntity.noContent().build();
    }
}
