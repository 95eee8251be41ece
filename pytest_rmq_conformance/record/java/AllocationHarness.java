// The consumer allocation part of the project's reference harness: asks the real
// AllocateMessageQueueStrategy classes of the rocketmq-client jar on the class path.
//
// Reads scenarios, one JSON object a line, on stdin (id, strategy, params, consumerGroup, mqAll,
// cidAll, tags, and optionally results, whose currentCIDs are the calls to make; without them,
// each distinct member of cidAll in first-seen order), and writes one harness record a line on
// stdout (schemas/harness-record.schema.json), ASCII only. A new strategy object and new list
// copies for every call. Argument 1 is the release, written into each record's reference.
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMachineRoomNearby;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragelyByCircle;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueByConfig;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueByMachineRoom;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueConsistentHash;
import org.apache.rocketmq.common.message.MessageQueue;

public final class AllocationHarness {
    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, "US-ASCII");
        System.setOut(System.err);  // what the release's classes print is not a record
        String release = args[0];
        Map<String, Object> reference = new LinkedHashMap<>();
        reference.put("rocketmq", release);
        reference.put("jdk", System.getProperty("java.runtime.name") + " " + System.getProperty("java.runtime.version"));
        reference.put("fileEncoding", System.getProperty("file.encoding"));
        reference.put("defaultCharset", Charset.defaultCharset().name());
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.trim().isEmpty()) {
                continue;
            }
            Map<String, Object> scenario = Json.object(Json.parse(line));
            out.println(Json.write(record(scenario, reference)));
        }
        out.flush();
    }

    static Map<String, Object> record(Map<String, Object> scenario, Map<String, Object> reference) {
        String strategy = (String) scenario.get("strategy");
        Map<String, Object> params = Json.object(scenario.get("params"));
        String group = (String) scenario.get("consumerGroup");
        List<MessageQueue> mqAll = queues(scenario.get("mqAll"));
        List<String> cidAll = strings(scenario.get("cidAll"));
        List<Object> results = new ArrayList<>();
        for (String currentCID : calls(scenario, cidAll)) {
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("currentCID", currentCID);
            try {
                List<MessageQueue> got = build(strategy, params).allocate(
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
        Map<String, Object> out = new LinkedHashMap<>();
        for (String key : new String[] {"id", "strategy", "params", "consumerGroup", "mqAll", "cidAll", "tags"}) {
            out.put(key, scenario.get(key));
        }
        out.put("reference", reference);
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

    static AllocateMessageQueueStrategy build(String strategy, Map<String, Object> params) {
        switch (strategy) {
            case "AVG":
                return new AllocateMessageQueueAveragely();
            case "AVG_BY_CIRCLE":
                return new AllocateMessageQueueAveragelyByCircle();
            case "CONSISTENT_HASH":
                return new AllocateMessageQueueConsistentHash(((Number) params.get("virtualNodeCnt")).intValue());
            case "CONFIG": {
                AllocateMessageQueueByConfig config = new AllocateMessageQueueByConfig();
                config.setMessageQueueList(queues(params.get("messageQueueList")));
                return config;
            }
            case "MACHINE_ROOM": {
                AllocateMessageQueueByMachineRoom room = new AllocateMessageQueueByMachineRoom();
                List<String> idcs = strings(params.get("consumeridcs"));
                room.setConsumeridcs(idcs == null ? null : new HashSet<>(idcs));
                return room;
            }
            case "MACHINE_ROOM_NEARBY": {
                Map<String, Object> inner = Json.object(params.get("inner"));
                return new AllocateMachineRoomNearby(
                    build((String) inner.get("strategy"), Json.object(inner.get("params"))), resolver(Json.object(params.get("resolver"))));
            }
            default:
                throw new IllegalStateException("no such strategy: " + strategy);
        }
    }

    /** A resolver from its spec: the room of a broker name and of a client id, by lookup or split. */
    static AllocateMachineRoomNearby.MachineRoomResolver resolver(Map<String, Object> spec) {
        if ("split".equals(spec.get("kind"))) {
            String separator = (String) spec.get("separator");
            Function<String, String> room = name -> name.split(separator)[0];
            return new Rooms(room, room);
        }
        Map<String, Object> brokers = Json.object(spec.get("brokerRoom"));
        Map<String, Object> consumers = Json.object(spec.get("consumerRoom"));
        return new Rooms(name -> (String) brokers.get(name), id -> (String) consumers.get(id));
    }

    /** The room of a queue's broker name and of a client id, each by a function of the name. */
    static final class Rooms implements AllocateMachineRoomNearby.MachineRoomResolver {
        private final Function<String, String> broker;
        private final Function<String, String> consumer;

        Rooms(Function<String, String> broker, Function<String, String> consumer) {
            this.broker = broker;
            this.consumer = consumer;
        }

        @Override
        public String brokerDeployIn(MessageQueue messageQueue) {
            return broker.apply(messageQueue.getBrokerName());
        }

        @Override
        public String consumerDeployIn(String clientID) {
            return consumer.apply(clientID);
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
