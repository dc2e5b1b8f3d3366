package dev.durable.sample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The sample's REST API, as a client sees it. */
final class SampleHttp {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;

    SampleHttp(int port) {
        this.base = "http://localhost:" + port;
    }

    record Response(int status, JsonNode json) {
    }

    long placeOrder(long customerId) throws IOException, InterruptedException {
        Response response = post("/orders", "{\"customerId\":" + customerId
                + ",\"sku\":\"SKU-42\",\"quantity\":2,\"amountCents\":2599}");
        if (response.status() != 201) {
            throw new AssertionError("placing an order answered " + response);
        }
        return response.json().path("id").asLong();
    }

    Response pay(long orderId, String eventId) throws IOException, InterruptedException {
        return post("/orders/" + orderId + "/payment", "{\"eventId\":\"" + eventId
                + "\",\"paymentId\":\"PAY-" + orderId + "\",\"amountCents\":2599}");
    }

    Response order(long orderId) throws IOException, InterruptedException {
        return get("/orders/" + orderId);
    }

    String status(long orderId) throws IOException, InterruptedException {
        return order(orderId).json().path("status").asString();
    }

    /** Whether the order waits for its payment (an order waiting for its lines' reservations is parked too). */
    boolean awaitsPayment(long orderId) throws IOException, InterruptedException {
        JsonNode order = order(orderId).json();
        return order.path("status").asString().equals("awaiting_signal")
                && order.path("step").asString().equals("await-payment");
    }

    /** The body of a GET, as it is (what {@code curl -s} prints). */
    String text(String path) throws IOException, InterruptedException {
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(base + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new AssertionError("GET " + path + " answered " + response.statusCode() + ": " + response.body());
        }
        return response.body();
    }

    Response get(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(base + path)).GET().build());
    }

    Response post(String path, String json) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build());
    }

    private Response send(HttpRequest request) throws IOException, InterruptedException {
        HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
        String body = response.body();
        return new Response(response.statusCode(), body.isBlank() ? JSON.missingNode() : JSON.readTree(body));
    }
}
