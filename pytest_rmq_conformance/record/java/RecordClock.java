// The clock of a recording: ClockPatch points LatencyFaultToleranceImpl's calls of
// System.currentTimeMillis() here, so that a trace says what time it is.
public final class RecordClock {
    public static volatile long now;

    private RecordClock() {
    }

    public static long currentTimeMillis() {
        return now;
    }
}
