// The consumer allocation part of the project's reference harness: asks the real
// AllocateMessageQueueStrategy classes of the rocketmq-client jar on the class path.
//
// Reads scenarios, one JSON object a line, on stdin (id, strategy, params, consumerGroup, mqAll,
// cidAll, tags, and optionally results, whose currentCIDs are the calls to make; without them,
// each distinct member of cidAll in first-seen order), and writes one harness record a line on
// stdout (schemas/harness-record.schema.json), ASCII only. A new strategy object and new list
// copies for every call. Argument 1 is the release, written into each record's reference. The
// strategies are built by reflection: a family the release lacks (4.0.0-incubating has neither the
// consistent hash nor the machine room nearby) answers with "unsupported", saying which class.
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy;
import org.apache.rocketmq.common.message.MessageQueue;

public final class AllocationHarness {
    public static void main(String[] args) throws Exception {
        Records records = new Records();
        Map<String, Object> reference = Records.reference("rocketmq", args[0]);
        records.serve(scenario -> record(scenario, reference));
    }

    static Map<String, Object> record(Map<String, Object> scenario, Map<String, Object> reference) {
        String strategy = (String) scenario.get("strategy");
        Map<String, Object> params = Json.object(scenario.get("params"));
        String group = (String) scenario.get("consumerGroup");
        List<MessageQueue> mqAll = queues(scenario.get("mqAll"));
        List<String> cidAll = strings(scenario.get("cidAll"));
        Map<String, Object> out = new LinkedHashMap<>();
        for (String key : new String[] {"id", "strategy", "params", "consumerGroup", "mqAll", "cidAll", "tags"}) {
            out.put(key, scenario.get(key));
        }
        out.put("reference", reference);
        try {
            strategyClass(strategy);
            if ("MACHINE_ROOM_NEARBY".equals(strategy)) {
                strategyClass((String) Json.object(params.get("inner")).get("strategy"));
            }
        } catch (Missing e) {
            out.put("unsupported", e.getMessage());
            return out;
        }
        List<Object> results = new ArrayList<>();
        for (String currentCID : calls(scenario, cidAll)) {
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("currentCID", currentCID);
            try {
                List<MessageQueue> got = strategy(strategy, params).allocate(
                    group, currentCID, mqAll == null ? null : new ArrayList<>(mqAll), cidAll == null ? null : new ArrayList<>(cidAll));
                if (got == null) {
                    result.put("null", Boolean.TRUE);
                } else {
                    result.put("queues", queuesOut(got));
                }
            } catch (RuntimeException e) {
                result.put("error", e.getClass().getName());
                result.put("message", e.getMessage());
            }
            results.add(result);
        }
        Map<String, Object> sorted = new LinkedHashMap<>();
        sorted.put("mqAll", sortedCopy(mqAll, true));
        sorted.put("cidAll", sortedCopy(cidAll, false));
        out.put("results", results);
        out.put("javaSorted", sorted);
        return out;
    }

    /** The currentCIDs to try: those of the scenario's results, else each distinct member of cidAll. */
    static List<String> calls(Map<String, Object> scenario, List<String> cidAll) {
        List<String> out = new ArrayList<>();
        Object results = scenario.get("results");
        if (results instanceof List) {
            for (Object result : (List<?>) results) {
                out.add((String) Json.object(result).get("currentCID"));
            }
            return out;
        }
        if (cidAll != null) {
            for (String cid : cidAll) {
                if (!out.contains(cid)) {
                    out.add(cid);
                }
            }
        }
        return out;
    }

    /** The class of each family, by its simple name: a release that lacks one (4.0.0-incubating has no consistent hash) cannot be asked. */
    static final Map<String, String> CLASSES = new LinkedHashMap<>();

    static {
        CLASSES.put("AVG", "AllocateMessageQueueAveragely");
        CLASSES.put("AVG_BY_CIRCLE", "AllocateMessageQueueAveragelyByCircle");
        CLASSES.put("CONSISTENT_HASH", "AllocateMessageQueueConsistentHash");
        CLASSES.put("CONFIG", "AllocateMessageQueueByConfig");
        CLASSES.put("MACHINE_ROOM", "AllocateMessageQueueByMachineRoom");
        CLASSES.put("MACHINE_ROOM_NEARBY", "AllocateMachineRoomNearby");
    }

    /** A family the release on the class path does not have. */
    static final class Missing extends Exception {
        private static final long serialVersionUID = 1L;

        Missing(String message) {
            super(message);
        }
    }

    static Class<?> strategyClass(String strategy) throws Missing {
        String name = CLASSES.get(strategy);
        if (name == null) {
            throw new IllegalStateException("no such strategy: " + strategy);
        }
        try {
            return Class.forName("org.apache.rocketmq.client.consumer.rebalance." + name);
        } catch (ClassNotFoundException e) {
            throw new Missing("this release has no " + name);
        }
    }

    /** build(), what a constructor or setter threw thrown as itself (a recorded answer, like allocate's). */
    static AllocateMessageQueueStrategy strategy(String strategy, Map<String, Object> params) {
        try {
            return build(strategy, params);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            throw cause instanceof RuntimeException ? (RuntimeException) cause : new IllegalStateException(cause);
        } catch (Missing | ReflectiveOperationException e) {
            throw new IllegalStateException("the harness cannot build " + strategy + ": " + e);
        }
    }

    /** A new strategy of the family, built as a user would (constructor, setters), by reflection: the classes differ by release. */
    static AllocateMessageQueueStrategy build(String strategy, Map<String, Object> params) throws Missing, ReflectiveOperationException {
        Class<?> type = strategyClass(strategy);
        switch (strategy) {
            case "CONSISTENT_HASH":
                return (AllocateMessageQueueStrategy) type.getConstructor(int.class).newInstance(((Number) params.get("virtualNodeCnt")).intValue());
            case "CONFIG": {
                Object config = type.getConstructor().newInstance();
                type.getMethod("setMessageQueueList", List.class).invoke(config, queues(params.get("messageQueueList")));
                return (AllocateMessageQueueStrategy) config;
            }
            case "MACHINE_ROOM": {
                Object room = type.getConstructor().newInstance();
                List<String> idcs = strings(params.get("consumeridcs"));
                type.getMethod("setConsumeridcs", Set.class).invoke(room, idcs == null ? null : new HashSet<>(idcs));
                return (AllocateMessageQueueStrategy) room;
            }
            case "MACHINE_ROOM_NEARBY": {
                Map<String, Object> inner = Json.object(params.get("inner"));
                Class<?> resolver = Class.forName(type.getName() + "$MachineRoomResolver");
                Object rooms = Proxy.newProxyInstance(resolver.getClassLoader(), new Class<?>[] {resolver}, resolver(Json.object(params.get("resolver"))));
                return (AllocateMessageQueueStrategy) type.getConstructor(AllocateMessageQueueStrategy.class, resolver)
                    .newInstance(build((String) inner.get("strategy"), Json.object(inner.get("params"))), rooms);
            }
            default:
                return (AllocateMessageQueueStrategy) type.getConstructor().newInstance();
        }
    }

    /** A resolver from its spec: the room of a broker name and of a client id, by lookup or split. */
    static Rooms resolver(Map<String, Object> spec) {
        if ("split".equals(spec.get("kind"))) {
            String separator = (String) spec.get("separator");
            Function<String, String> room = name -> name.split(separator)[0];
            return new Rooms(room, room);
        }
        Map<String, Object> brokers = Json.object(spec.get("brokerRoom"));
        Map<String, Object> consumers = Json.object(spec.get("consumerRoom"));
        return new Rooms(name -> (String) brokers.get(name), id -> (String) consumers.get(id));
    }

    /** AllocateMachineRoomNearby.MachineRoomResolver: the room of a queue's broker name and of a client id, each by a function of the name. */
    static final class Rooms implements InvocationHandler {
        private final Function<String, String> broker;
        private final Function<String, String> consumer;

        Rooms(Function<String, String> broker, Function<String, String> consumer) {
            this.broker = broker;
            this.consumer = consumer;
        }

        @Override
        public Object invoke(Object self, Method method, Object[] args) {
            switch (method.getName()) {
                case "brokerDeployIn":
                    return broker.apply(((MessageQueue) args[0]).getBrokerName());
                case "consumerDeployIn":
                    return consumer.apply((String) args[0]);
                case "hashCode":
                    return System.identityHashCode(self);
                case "equals":
                    return self == args[0];
                case "toString":
                    return "harness MachineRoomResolver";
                default:
                    throw new UnsupportedOperationException(method.toString());
            }
        }
    }

    static Object sortedCopy(List<?> list, boolean queues) {
        if (list == null) {
            return null;
        }
        try {
            if (queues) {
                List<MessageQueue> copy = new ArrayList<>();
                for (Object mq : list) {
                    copy.add((MessageQueue) mq);
                }
                Collections.sort(copy);
                return queuesOut(copy);
            }
            List<String> copy = new ArrayList<>();
            for (Object cid : list) {
                copy.add((String) cid);
            }
            Collections.sort(copy);
            return new ArrayList<Object>(copy);
        } catch (RuntimeException e) {
            Map<String, Object> error = new LinkedHashMap<>();
            error.put("error", e.getClass().getName());
            error.put("message", e.getMessage());
            return error;
        }
    }

    static List<MessageQueue> queues(Object json) {
        if (json == null) {
            return null;
        }
        List<MessageQueue> out = new ArrayList<>();
        for (Object item : (List<?>) json) {
            List<?> triple = (List<?>) item;
            out.add(new MessageQueue((String) triple.get(0), (String) triple.get(1), ((Number) triple.get(2)).intValue()));
        }
        return out;
    }

    static List<Object> queuesOut(List<MessageQueue> queues) {
        List<Object> out = new ArrayList<>();
        for (MessageQueue mq : queues) {
            List<Object> triple = new ArrayList<>();
            triple.add(mq.getTopic());
            triple.add(mq.getBrokerName());
            triple.add((long) mq.getQueueId());
            out.add(triple);
        }
        return out;
    }

    static List<String> strings(Object json) {
        if (json == null) {
            return null;
        }
        List<String> out = new ArrayList<>();
        for (Object item : (List<?>) json) {
            out.add((String) item);
        }
        return out;
    }
}
