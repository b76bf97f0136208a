/*
 * A dcpcheck client adapter in Java 17 (docs/client-targets.md): the resume and
 * rollback logic of a client shaped like couchbase/java-dcp-client's defaults,
 * written from dcpcheck's catalogue entry (spec/consumers/clients/java_dcp_client.py),
 * standalone (no libraries: a small JSON reader and writer below).
 *
 * Its offset store keeps, per vbucket, the failover log, the seqno of the last
 * mutation received and the snapshot marker that mutation came in. On
 * ROLLBACK(R) it rewinds the offset to start R with the snapshot {R, R} and
 * prunes its own failover log above R; its application keeps every document
 * it has (it is told of the rollback, and by default does nothing).
 *
 *   javac -d OUT JavaLikeClient.java
 *   dcpcheck clients --target "jsonl:java -cp OUT JavaLikeClient"
 */

import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

public final class JavaLikeClient {

    /** What the application holds for a key. */
    record Version(long seqno, long cas, boolean deleted) {}

    /** A stream request (the offset it resumes from). */
    record Offset(long start, long snapStart, long snapEnd) {}

    private List<long[]> log = new ArrayList<>(); // [uuid, seqno], newest first
    private final Map<String, Version> application = new TreeMap<>();
    private long lastSeqno = 0;
    private long[] marker = {0, 0}; // the snapshot marker being received
    private long[] lastSnapshot = {0, 0}; // the marker the last mutation came in
    private Offset claim = null; // what it requests in this resume, once decided

    void receive(Map<String, Object> message) {
        String type = (String) message.get("type");
        switch (type) {
            case "begin" -> {
                log = logOf(message.get("failover_log"));
                application.clear();
                lastSeqno = 0;
                marker = new long[] {0, 0};
                lastSnapshot = new long[] {0, 0};
                claim = null;
            }
            case "snapshot" -> marker = new long[] {num(message, "start"), num(message, "end")};
            case "mutation", "deletion" -> {
                long seqno = num(message, "seqno");
                String key = (String) message.get("key");
                application.put(key, new Version(seqno, num(message, "cas"), type.equals("deletion")));
                lastSeqno = seqno;
                lastSnapshot = marker.clone();
            }
            case "accepted" -> log = logOf(message.get("failover_log"));
            case "rollback" -> {
                long r = num(message, "seqno");
                // rewind to (R, {R, R}); own log pruned above R; the documents stay
                claim = new Offset(r, r, r);
                List<long[]> pruned = new ArrayList<>();
                for (long[] entry : log) {
                    if (Long.compareUnsigned(entry[1], r) <= 0) {
                        pruned.add(entry);
                    }
                }
                log = pruned;
            }
            case "disconnect", "stream_end", "erange" -> claim = null;
            default -> { } // seqno_advanced and anything newer: nothing to keep
        }
    }

    Map<String, Object> streamRequest() {
        if (claim == null) {
            claim = new Offset(lastSeqno, lastSnapshot[0], lastSnapshot[1]);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("uuid", log.isEmpty() ? 0L : log.get(0)[0]);
        out.put("start", claim.start());
        out.put("snap_start", claim.snapStart());
        out.put("snap_end", claim.snapEnd());
        out.put("flags", 0L);
        return out;
    }

    Map<String, Object> data() {
        Map<String, Object> held = new LinkedHashMap<>();
        for (Map.Entry<String, Version> e : application.entrySet()) {
            Map<String, Object> v = new LinkedHashMap<>();
            v.put("seqno", e.getValue().seqno());
            v.put("cas", e.getValue().cas());
            v.put("deleted", e.getValue().deleted());
            held.put(e.getKey(), v);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("data", held);
        return out;
    }

    public static void main(String[] args) throws IOException {
        JavaLikeClient client = new JavaLikeClient();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(
                new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16),
                false,
                StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> message = (Map<String, Object>) new Json(line).value();
            Object answer = switch ((String) message.get("type")) {
                case "hello" -> {
                    Map<String, Object> hello = new LinkedHashMap<>();
                    hello.put("client", "java-like-client");
                    hello.put("rollback_mitigation", false);
                    yield hello;
                }
                case "stream_request" -> client.streamRequest();
                case "data" -> client.data();
                default -> {
                    client.receive(message);
                    yield null;
                }
            };
            if (answer != null) {
                out.print(Json.write(answer) + "\n");
            }
            // Answers go out when nothing more is waiting to be read: dcpcheck may write
            // several questions at once (what the application holds, a stream, what it
            // holds then), and their answers then leave in one write.
            if (!in.ready()) {
                out.flush();
            }
        }
        out.flush();
    }

    private static long num(Map<String, Object> message, String field) {
        return (Long) message.get(field);
    }

    private static List<long[]> logOf(Object value) {
        List<long[]> out = new ArrayList<>();
        for (Object entry : (List<?>) value) {
            List<?> pair = (List<?>) entry;
            out.add(new long[] {(Long) pair.get(0), (Long) pair.get(1)});
        }
        return out;
    }

    /** Just enough JSON: objects, arrays, strings without escapes beyond \" and \\,
     *  unsigned 64-bit integers, booleans and null. */
    static final class Json {
        private final String text;
        private int at = 0;

        Json(String text) {
            this.text = text;
        }

        Object value() {
            skip();
            char c = text.charAt(at);
            if (c == '{') {
                Map<String, Object> obj = new LinkedHashMap<>();
                at++;
                if (closes('}')) {
                    return obj;
                }
                while (true) {
                    skip();
                    String key = string();
                    skip();
                    at++; // ':'
                    obj.put(key, value());
                    if (closes('}')) {
                        return obj;
                    }
                    at++; // ','
                }
            }
            if (c == '[') {
                List<Object> list = new ArrayList<>();
                at++;
                if (closes(']')) {
                    return list;
                }
                while (true) {
                    list.add(value());
                    if (closes(']')) {
                        return list;
                    }
                    at++; // ','
                }
            }
            if (c == '"') {
                return string();
            }
            if (text.startsWith("true", at)) {
                at += 4;
                return Boolean.TRUE;
            }
            if (text.startsWith("false", at)) {
                at += 5;
                return Boolean.FALSE;
            }
            if (text.startsWith("null", at)) {
                at += 4;
                return null;
            }
            int start = at;
            while (at < text.length() && Character.isDigit(text.charAt(at))) {
                at++;
            }
            return Long.parseUnsignedLong(text.substring(start, at));
        }

        private String string() {
            StringBuilder out = new StringBuilder();
            at++; // opening quote
            while (text.charAt(at) != '"') {
                char c = text.charAt(at++);
                out.append(c == '\\' ? text.charAt(at++) : c);
            }
            at++;
            return out.toString();
        }

        /** Past white space, whether {@code close} comes next (then past it too). */
        private boolean closes(char close) {
            skip();
            if (text.charAt(at) != close) {
                return false;
            }
            at++;
            return true;
        }

        private void skip() {
            while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
                at++;
            }
        }

        static String write(Object value) {
            if (value instanceof Map<?, ?> map) {
                StringBuilder out = new StringBuilder("{");
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    if (out.length() > 1) {
                        out.append(',');
                    }
                    out.append('"').append(e.getKey()).append("\":").append(write(e.getValue()));
                }
                return out.append('}').toString();
            }
            if (value instanceof Long n) {
                return Long.toUnsignedString(n);
            }
            if (value instanceof String s) {
                return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
            }
            return String.valueOf(value);
        }
    }
}
