// Writes what java.lang.String.split and String.getBytes(charset) return for
// the inputs the project's javalang helpers must reproduce. Regenerate with:
//   javac -d /tmp/jlv tests/java/JavaLangVectors.java
//   java -cp /tmp/jlv JavaLangVectors > tests/data/javalang_vectors.jsonl
import java.nio.charset.Charset;

public class JavaLangVectors {
    static String json(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') out.append('\\').append(c);
            else if (c >= 0x20 && c < 0x7f) out.append(c);
            else out.append(String.format("\\u%04x", (int) c));
        }
        return out.append('"').toString();
    }

    public static void main(String[] args) {
        String[] texts = {"a@b", "a@", "@b", "@", "", "a@@b", "@@", "a@b@c", "x", "--", "-x-", "a.b", "a|b",
                          "a1b22c", "abc", "room-\uD83D\uDE00-x", "\u4e2d-\u65e5"};
        String[] regexes = {"@", "-", ".", "\\.", "|", "\\|", "\\d+", "", "@@"};
        for (String text : texts) {
            for (String regex : regexes) {
                StringBuilder parts = new StringBuilder("[");
                String[] split = text.split(regex);
                for (int i = 0; i < split.length; i++) parts.append(i > 0 ? "," : "").append(json(split[i]));
                System.out.println("{\"split\":" + json(text) + ",\"regex\":" + json(regex) + ",\"parts\":" + parts + "]}");
            }
        }
        String[] texts2 = {"abc", "\u00fc\u00df", "c-\u4e2d", "c-\uD83D\uDE00", "x\uD800y", "x\uDC00",
                           "\uD83D\uDE00\uD83D", "\u20ac", "10.0.0.1@\uFF21-3"};
        for (String charset : new String[] {"UTF-8", "ISO-8859-1", "US-ASCII", "windows-1252"}) {
            for (String text : texts2) {
                StringBuilder hex = new StringBuilder();
                for (byte b : text.getBytes(Charset.forName(charset))) hex.append(String.format("%02x", b));
                System.out.println("{\"bytes\":" + json(text) + ",\"charset\":" + json(charset) + ",\"hex\":\"" + hex + "\"}");
            }
        }
    }
}
