package dev.durable.runtime.control;

import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.durable.DurableInstance;
import dev.durable.InstanceStatus;
import dev.durable.json.JsonCodec;
import dev.durable.json.JsonCodecException;
import java.lang.invoke.MethodType;
import java.lang.reflect.Type;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One row of {@code durable_instance} as the read API returns it: the {@link DurableInstance} of
 * {@link QueryRepository#find} and {@link SearchRepository}, holding the codec its state and result are
 * read with. Written as JSON (by an application that returns it from a controller) it has the interface's
 * properties, without the codec.
 */
record InstanceRow(
        long id,
        String machine,
        int version,
        String step,
        InstanceStatus status,
        String queue,
        short priority,
        @Nullable String partitionKey,
        @Nullable String awaits,
        int attempt,
        Instant eligibleAt,
        @Nullable String lastError,
        @Nullable String leaseOwner,
        @Nullable Instant leaseExpiresAt,
        @Nullable String uniqueKey,
        boolean holdsUniqueKey,
        @Nullable String correlationKey,
        @Nullable String stateJson,
        @Nullable String resultJson,
        Instant createdAt,
        Instant updatedAt,
        @Nullable Long parentId,
        @JsonIgnore JsonCodec codec) implements DurableInstance {

    /**
     * The row the read statements return: their columns are those of {@code durable_instance}, but the statuses,
     * state and result as text and {@code holds_unique_key} for {@code unique_guard IS NOT NULL}.
     */
    static DurableInstance read(ResultSet rs, JsonCodec codec) throws SQLException {
        return new InstanceRow(rs.getLong("id"), rs.getString("machine"), rs.getInt("machine_version"),
                rs.getString("step"), InstanceStatus.fromLabel(rs.getString("status")), rs.getString("queue"),
                rs.getShort("priority"), rs.getString("partition_key"), rs.getString("awaits"), rs.getInt("attempt"),
                instant(rs, "eligible_at"), rs.getString("last_error"), rs.getString("lease_owner"),
                nullableInstant(rs, "lease_expires_at"), rs.getString("unique_key"),
                rs.getBoolean("holds_unique_key"), rs.getString("correlation_key"), rs.getString("state"),
                rs.getString("result"), instant(rs, "created_at"), instant(rs, "updated_at"),
                rs.getObject("parent_id", Long.class), codec);
    }

    private static Instant instant(ResultSet rs, String column) throws SQLException {
        return Objects.requireNonNull(nullableInstant(rs, column), column);
    }

    private static @Nullable Instant nullableInstant(ResultSet rs, String column) throws SQLException {
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }

    @Override
    public <T> @Nullable T state(Class<T> type) {
        return cast(type, state((Type) type));
    }

    @Override
    public @Nullable Object state(Type type) {
        return read("state", stateJson, type);
    }

    @Override
    public <T> @Nullable T result(Class<T> type) {
        return cast(type, result((Type) type));
    }

    @Override
    public @Nullable Object result(Type type) {
        return read("result", resultJson, type);
    }

    private @Nullable Object read(String what, @Nullable String json, Type type) {
        Objects.requireNonNull(type, "type must not be null");
        if (json == null) {
            return null;
        }
        try {
            return codec.read(json, type);
        } catch (JsonCodecException e) {
            throw new JsonCodecException("The " + what + " of instance " + id + " (" + machine + " v" + version
                    + ") cannot be read as " + type.getTypeName() + ": " + e.getMessage(), e);
        }
    }

    /** {@code value} as {@code type}; a primitive type reads as its wrapper ({@code int.class} as an Integer). */
    @SuppressWarnings("unchecked")
    private static <T> @Nullable T cast(Class<T> type, @Nullable Object value) {
        return (T) MethodType.methodType(type).wrap().returnType().cast(value);
    }

    /** The row without its state and result, which may hold personal data. */
    @Override
    public String toString() {
        return "DurableInstance[id=" + id + ", machine=" + machine + ", version=" + version + ", step=" + step
                + ", status=" + status + ", queue=" + queue + ", priority=" + priority + ", partitionKey="
                + partitionKey + ", awaits=" + awaits + ", attempt=" + attempt + ", eligibleAt=" + eligibleAt
                + ", lastError=" + lastError + ", leaseOwner=" + leaseOwner + ", leaseExpiresAt=" + leaseExpiresAt
                + ", uniqueKey=" + uniqueKey + ", holdsUniqueKey=" + holdsUniqueKey + ", correlationKey="
                + correlationKey + ", createdAt=" + createdAt + ", updatedAt=" + updatedAt + "]";
    }
}
