// The loop every part of the project's reference harness runs: scenarios, one JSON object a line,
// on stdin; one record a line on stdout, ASCII only. stdout is taken at once, before the classes
// under test load: whatever they print goes to stderr, never into a record. A scenario the harness
// cannot ask ends the run with exit 3, naming the scenario (the Python side says so and writes
// nothing).
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UnsupportedEncodingException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

final class Records {
    /** What one part makes of one scenario: the whole record, its reference included. */
    interface Recorder {
        Map<String, Object> record(Map<String, Object> scenario) throws Exception;
    }

    private final PrintStream out;

    Records() throws UnsupportedEncodingException {
        out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, "US-ASCII");
        System.setOut(System.err);
    }

    /** A run's reference: {@code key}'s {@code value}, then the JVM a record was made in (its runtime, file.encoding and default charset). */
    static Map<String, Object> reference(String key, Object value) {
        Map<String, Object> reference = new LinkedHashMap<>();
        reference.put(key, value);
        reference.put("jdk", System.getProperty("java.runtime.name") + " " + System.getProperty("java.runtime.version"));
        reference.put("fileEncoding", System.getProperty("file.encoding"));
        reference.put("defaultCharset", Charset.defaultCharset().name());
        return reference;
    }

    void serve(Recorder recorder) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.trim().isEmpty()) {
                continue;
            }
            Map<String, Object> scenario = Json.object(Json.parse(line));
            Map<String, Object> record;
            try {
                record = recorder.record(scenario);
            } catch (Exception e) {
                out.flush();
                System.err.println("scenario " + scenario.get("id") + ": " + e);
                e.printStackTrace();
                System.exit(3);
                return;
            }
            out.println(Json.write(record));
        }
        out.flush();
    }
}
