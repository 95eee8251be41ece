// The producer selection part of the project's reference harness: asks the real MQFaultStrategy,
// LatencyFaultToleranceImpl, TopicPublishInfo and the MessageQueueSelectors of the
// rocketmq-client jar on the class path.
//
// Reads scenarios, one JSON object a line, on stdin (FAULT_STRATEGY: id, family, tags, topic,
// route, config, initial, steps; SELECTOR_HASH: ... arg, queueCounts; SELECTOR_RANDOM: ... seed,
// queueCounts; answer fields are ignored) and writes one record a line on stdout
// (schemas/producer-harness-record.schema.json), ASCII only. Argument 1 is the release.
//
// What a release offers is found by reflection, once: the fault strategy's constructor, select
// and update signatures, the route classes' package, the detector. The reference of every record
// says which were called. LatencyFaultToleranceImpl must read RecordClock (ClockPatch), and the
// JVM must open java.util to this class (Collections' Random, for pickOneAtLeast's shuffle).
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

import org.apache.rocketmq.client.producer.MessageQueueSelector;
import org.apache.rocketmq.common.message.MessageQueue;

public final class ProducerHarness {
    /** Lists longer than this are a read-only list that makes each queue when asked. */
    static final int REAL_LIST = 65536;

    public static void main(String[] args) throws Exception {
        Records records = new Records();
        Api api = new Api();
        Shuffles shuffles = Shuffles.install();
        Map<String, Object> reference = Records.reference("rocketmq", args[0]);
        reference.put("calls", api.calls);
        records.serve(scenario -> {
            Map<String, Object> record;
            switch (String.valueOf(scenario.get("family"))) {
                case "FAULT_STRATEGY":
                    record = new Trace(api, shuffles, scenario).record();
                    break;
                case "SELECTOR_HASH":
                    record = selectorHash(api, scenario);
                    break;
                case "SELECTOR_RANDOM":
                    record = selectorRandom(api, scenario);
                    break;
                default:
                    throw new IllegalArgumentException("no such family: " + scenario.get("family"));
            }
            record.put("reference", reference);
            return order(record);
        });
    }

    /** The record's keys in the order the schema lists them (reference after the inputs). */
    static Map<String, Object> order(Map<String, Object> record) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (String key : new String[] {"id", "family", "tags", "topic", "route", "config", "initial", "arg", "argHashCode", "seed", "queueCounts", "reference"}) {
            if (record.containsKey(key)) {
                out.put(key, record.get(key));
            }
        }
        out.putAll(record);
        return out;
    }

    // ---- the selectors ----

    static Map<String, Object> selectorHash(Api api, Map<String, Object> scenario) throws ReflectiveOperationException {
        Map<String, Object> arg = Json.object(scenario.get("arg"));
        Object value = argument(arg);
        Map<String, Object> out = inputs(scenario, "id", "family", "tags", "arg");
        out.put("argHashCode", value == null ? null : (Object) (long) value.hashCode());
        out.put("queueCounts", scenario.get("queueCounts"));
        out.put("results", select((MessageQueueSelector) api.byHash.getConstructor().newInstance(), value, scenario.get("queueCounts")));
        return out;
    }

    static Map<String, Object> selectorRandom(Api api, Map<String, Object> scenario) throws ReflectiveOperationException {
        MessageQueueSelector selector = (MessageQueueSelector) api.byRandom.getConstructor().newInstance();
        Reflect.fieldOfType(api.byRandom, Random.class).set(selector, new Random(((Number) scenario.get("seed")).longValue()));
        Map<String, Object> out = inputs(scenario, "id", "family", "tags", "seed", "queueCounts");
        out.put("results", select(selector, null, scenario.get("queueCounts")));
        return out;
    }

    /** The selector called once per queue count, in order: the returned queue's position, or what it threw. */
    static List<Object> select(MessageQueueSelector selector, Object arg, Object counts) {
        List<Object> results = new ArrayList<>();
        for (Object count : (List<?>) counts) {
            int n = ((Number) count).intValue();
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("n", (long) n);
            try {
                MessageQueue got = selector.select(queues(n), null, arg);
                result.put("index", got == null ? null : (Object) (long) got.getQueueId());
            } catch (RuntimeException e) {
                result.put("error", e.getClass().getName());
                result.put("message", e.getMessage());
            }
            results.add(result);
        }
        return results;
    }

    /** TopicTest/broker-a/0 .. n-1; past REAL_LIST a list that makes the queue it is asked for. */
    static List<MessageQueue> queues(final int n) {
        if (n > REAL_LIST) {
            return new AbstractList<MessageQueue>() {
                @Override
                public MessageQueue get(int index) {
                    if (index < 0 || index >= n) {  // ArrayList.get's check, in its words
                        throw new IndexOutOfBoundsException("Index " + index + " out of bounds for length " + n);
                    }
                    return new MessageQueue("TopicTest", "broker-a", index);
                }

                @Override
                public int size() {
                    return n;
                }
            };
        }
        List<MessageQueue> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(new MessageQueue("TopicTest", "broker-a", i));
        }
        return out;
    }

    /** A selector's argument: a String, an Integer, a Long, an object of a given hashCode(), or null. */
    static Object argument(Map<String, Object> arg) {
        Object value = arg.get("value");
        switch (String.valueOf(arg.get("type"))) {
            case "string":
                return (String) value;
            case "integer":
                return Integer.valueOf(((Number) value).intValue());
            case "long":
                return Long.valueOf(((Number) value).longValue());
            case "hashCode": {
                final int hash = ((Number) value).intValue();
                return new Object() {
                    @Override
                    public int hashCode() {
                        return hash;
                    }
                };
            }
            case "null":
                return null;
            default:
                throw new IllegalArgumentException("no such argument type: " + arg.get("type"));
        }
    }

    static Map<String, Object> inputs(Map<String, Object> scenario, String... keys) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (String key : keys) {
            out.put(key, scenario.get(key));
        }
        return out;
    }

    // ---- the fault strategy ----

    /** What the release on the class path offers, found once. */
    static final class Api {
        final Class<?> strategyClass;
        final Constructor<?> strategyNew;
        final Method select;
        final boolean selectResets;
        final Method update;
        final boolean updateReachable;
        final Method toPublishInfo;
        final Class<?> routeClass;
        final Class<?> queueDataClass;
        final Class<?> brokerDataClass;
        final Method detect;
        final Class<?> resolverClass;
        final Class<?> detectorClass;
        final Object clientConfig;
        final Class<?> byHash;
        final Class<?> byRandom;
        final List<Object> calls = new ArrayList<>();

        Api() throws ReflectiveOperationException {
            String selectors = "org.apache.rocketmq.client.producer.selector.";
            byHash = Class.forName(selectors + "SelectMessageQueueByHash");
            Class<?> random;
            try {
                random = Class.forName(selectors + "SelectMessageQueueByRandom");
            } catch (ClassNotFoundException e) {
                random = Class.forName(selectors + "SelectMessageQueueByRandoom");  // the name up to 4.1.0-incubating
            }
            byRandom = random;
            strategyClass = Class.forName("org.apache.rocketmq.client.latency.MQFaultStrategy");
            Method select3 = Reflect.method(strategyClass, "selectOneMessageQueue", 3);
            select = select3 != null ? select3 : Reflect.method(strategyClass, "selectOneMessageQueue", 2);
            selectResets = select3 != null;
            Method update4 = Reflect.method(strategyClass, "updateFaultItem", 4);
            update = update4 != null ? update4 : Reflect.method(strategyClass, "updateFaultItem", 3);
            updateReachable = update4 != null;
            Class<?> route;
            try {
                route = Class.forName("org.apache.rocketmq.remoting.protocol.route.TopicRouteData");
            } catch (ClassNotFoundException e) {
                route = Class.forName("org.apache.rocketmq.common.protocol.route.TopicRouteData");
            }
            routeClass = route;
            String routePackage = route.getPackage().getName() + ".";
            queueDataClass = Class.forName(routePackage + "QueueData");
            brokerDataClass = Class.forName(routePackage + "BrokerData");
            Class<?> instance = Class.forName("org.apache.rocketmq.client.impl.factory.MQClientInstance");
            toPublishInfo = instance.getMethod("topicRouteData2TopicPublishInfo", String.class, routeClass);
            Class<?> tolerance = Class.forName("org.apache.rocketmq.client.latency.LatencyFaultToleranceImpl");
            detect = Reflect.method(tolerance, "detectByOneRound", 0);
            Constructor<?> plain = null;
            Constructor<?> detecting = null;
            for (Constructor<?> constructor : strategyClass.getConstructors()) {
                Class<?>[] types = constructor.getParameterTypes();
                if (types.length == 0) {
                    plain = constructor;
                } else if (types.length == 3 && types[1].getSimpleName().equals("Resolver")) {
                    detecting = constructor;
                }
            }
            if (detecting != null) {
                strategyNew = detecting;
                Class<?>[] types = detecting.getParameterTypes();
                clientConfig = types[0].getConstructor().newInstance();
                resolverClass = types[1];
                detectorClass = types[2];
            } else if (plain != null) {
                strategyNew = plain;
                clientConfig = null;
                resolverClass = null;
                detectorClass = null;
            } else {
                throw new IllegalStateException("MQFaultStrategy has neither a constructor () nor (ClientConfig, Resolver, ServiceDetector)");
            }
            calls.add(Reflect.signature(strategyNew));
            calls.add(Reflect.signature(select));
            calls.add(Reflect.signature(update));
            calls.add(Reflect.signature(toPublishInfo));
            if (detect != null) {
                calls.add(Reflect.signature(detect));
            }
            calls.add(byHash.getSimpleName() + ".select(List, Message, Object)");
            calls.add(byRandom.getSimpleName() + ".select(List, Message, Object)");
        }
    }

    /** The names a detect step resolves and the addresses it reaches, as the strategy's Resolver and ServiceDetector see them. */
    static final class Network {
        Map<String, Object> resolve = new HashMap<>();
        Set<Object> reachable = new HashSet<>();

        Object proxy(Class<?> type) {
            return Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (self, method, args) -> {
                switch (method.getName()) {
                    case "resolve":
                        return resolve.get(args[0]);
                    case "detect":
                        return reachable.contains(args[0]);
                    case "hashCode":
                        return System.identityHashCode(self);
                    case "equals":
                        return self == args[0];
                    case "toString":
                        return "harness " + type.getSimpleName();
                    default:
                        throw new UnsupportedOperationException(method.toString());
                }
            });
        }
    }

    /**
     * Collections' own Random, replaced: pickOneAtLeast's shuffle draws from it. By default every
     * draw is 0 (one fixed permutation); a script gives the draws of one step, to replay it under
     * each permutation. It notes the bound of every draw of the step being run.
     */
    static final class Shuffles extends Random {
        private static final long serialVersionUID = 1L;
        int[] script;
        int drawn;
        final List<Integer> bounds = new ArrayList<>();

        static Shuffles install() throws ReflectiveOperationException {
            Shuffles shuffles = new Shuffles();
            Field r = Collections.class.getDeclaredField("r");
            r.setAccessible(true);
            r.set(null, shuffles);
            return shuffles;
        }

        void step(int[] draws) {
            script = draws;
            drawn = 0;
            bounds.clear();
        }

        @Override
        public int nextInt(int bound) {
            bounds.add(bound);
            return script == null ? 0 : script[drawn++];
        }

        @Override
        protected int next(int bits) {
            throw new IllegalStateException("Collections' Random used by something other than a shuffle");
        }
    }

    /** One FAULT_STRATEGY scenario: one producer, one thread, the steps in order. */
    static final class Trace {
        final Api api;
        final Shuffles shuffles;
        final Map<String, Object> scenario;
        final List<Object> steps;
        Object strategy;
        Object tolerance;
        Object publishInfo;
        Network network;

        Trace(Api api, Shuffles shuffles, Map<String, Object> scenario) {
            this.api = api;
            this.shuffles = shuffles;
            this.scenario = scenario;
            this.steps = Json.list(scenario.get("steps"));
        }

        Map<String, Object> record() throws Exception {
            Map<String, Object> out = inputs(scenario, "id", "family", "tags", "topic", "route", "config", "initial");
            out.put("publishListRuns", start());
            List<Object> written = new ArrayList<>();
            for (int k = 0; k < steps.size(); k++) {
                Map<String, Object> step = Json.object(steps.get(k));
                Map<String, Object> copy = new LinkedHashMap<>();
                for (Map.Entry<String, Object> entry : step.entrySet()) {
                    if (!entry.getKey().equals("expect") && !entry.getKey().equals("expectOneOf")) {
                        copy.put(entry.getKey(), entry.getValue());
                    }
                }
                written.add(copy);
                if (out.containsKey("nondeterministic")) {
                    continue;  // the steps after a step with several outcomes: no answer
                }
                boolean tied = tied();
                shuffles.step(null);
                Map<String, Object> answer = run(step);
                List<Integer> bounds = new ArrayList<>(shuffles.bounds);
                if (tied && !bounds.isEmpty()) {
                    TreeMap<String, Map<String, Object>> outcomes = replays(k, bounds);
                    if (outcomes.size() > 1) {
                        copy.put("expectOneOf", new ArrayList<Object>(outcomes.values()));
                        Map<String, Object> why = new LinkedHashMap<>();
                        why.put("step", (long) k);
                        why.put("reason", "Collections.shuffle in pickOneAtLeast with tied FaultItems (" + bounds.get(0) + " items, "
                            + outcomes.size() + " distinct outcomes over all " + permutations(bounds) + " permutations); "
                            + "later steps depend on the outcome and carry no expect");
                        out.put("nondeterministic", why);
                        continue;
                    }
                }
                if (answer != null) {
                    copy.put("expect", answer);
                }
            }
            out.put("steps", written);
            return out;
        }

        static long permutations(List<Integer> bounds) {
            long product = 1;
            for (int bound : bounds) {
                product *= bound;
            }
            return product;
        }

        /** Step k's outcome under every sequence of draws its shuffles can take, the steps before it replayed as first run. */
        TreeMap<String, Map<String, Object>> replays(int k, List<Integer> bounds) throws Exception {
            TreeMap<String, Map<String, Object>> outcomes = new TreeMap<>();
            int[] draws = new int[bounds.size()];
            while (true) {
                start();
                for (int j = 0; j < k; j++) {
                    shuffles.step(null);
                    run(Json.object(steps.get(j)));
                }
                shuffles.step(draws);
                Map<String, Object> outcome = run(Json.object(steps.get(k)));
                if (!shuffles.bounds.equals(bounds)) {
                    throw new IllegalStateException("step " + k + " shuffled differently on a replay: " + shuffles.bounds + " against " + bounds);
                }
                outcomes.put(Json.write(outcome), outcome);
                int at = draws.length - 1;
                while (at >= 0 && ++draws[at] == bounds.get(at)) {
                    draws[at--] = 0;
                }
                if (at < 0) {
                    return outcomes;
                }
            }
        }

        /** A new producer at the scenario's start: clock, route, counters, strategy; returns the publish list as runs. */
        Object start() throws Exception {
            Map<String, Object> initial = Json.object(scenario.get("initial"));
            Map<String, Object> config = Json.object(scenario.get("config"));
            RecordClock.now = ((Number) initial.get("clockMs")).longValue();
            network = new Network();
            strategy = api.clientConfig == null
                ? api.strategyNew.newInstance()
                : api.strategyNew.newInstance(api.clientConfig, network.proxy(api.resolverClass), network.proxy(api.detectorClass));
            tolerance = Reflect.get(strategy, "latencyFaultTolerance");
            Reflect.call(strategy, "setSendLatencyFaultEnable", config.get("sendLatencyFaultEnable"));
            if (config.get("latencyMax") != null) {
                Reflect.call(strategy, "setLatencyMax", (Object) longs(config.get("latencyMax")));
            }
            if (config.get("notAvailableDuration") != null) {
                Reflect.call(strategy, "setNotAvailableDuration", (Object) longs(config.get("notAvailableDuration")));
            }
            Object worst = Reflect.fieldOfTypeOrNull(tolerance.getClass(), indexClass());
            if (worst != null) {
                pin(((Field) worst).get(tolerance), initial.get("worstIndex"), initial.get("worstIndexSeed"));
            }
            publishInfo = publishInfo(scenario.get("route"), initial.get("sendIndex"), initial.get("sendIndexSeed"));
            return runs();
        }

        static Class<?> indexClass() throws ClassNotFoundException {
            return Class.forName("org.apache.rocketmq.client.common.ThreadLocalIndex");
        }

        Object publishInfo(Object routeJson, Object sendIndex, Object seed) throws Exception {
            Object info = api.toPublishInfo.invoke(null, scenario.get("topic"), route(Json.object(routeJson)));
            pin(Reflect.call(info, "getSendWhichQueue"), sendIndex, seed);
            return info;
        }

        /** A TopicRouteData as the name server would answer: queueDatas and brokerDatas in the given order. */
        Object route(Map<String, Object> json) throws Exception {
            List<Object> queueDatas = new ArrayList<>();
            for (Object item : Json.list(json.get("queueDatas"))) {
                List<?> row = (List<?>) item;
                Object data = api.queueDataClass.getConstructor().newInstance();
                int queues = ((Number) row.get(1)).intValue();
                Reflect.call(data, "setBrokerName", row.get(0));
                Reflect.call(data, "setReadQueueNums", queues);
                Reflect.call(data, "setWriteQueueNums", queues);
                Reflect.call(data, "setPerm", ((Number) row.get(2)).intValue());
                queueDatas.add(data);
            }
            List<Object> brokerDatas = new ArrayList<>();
            int host = 0;
            for (Object item : Json.list(json.get("brokerDatas"))) {
                List<?> row = (List<?>) item;
                Object data = api.brokerDataClass.getConstructor().newInstance();
                HashMap<Long, String> addresses = new HashMap<>();
                host++;
                for (Object id : (List<?>) row.get(1)) {
                    addresses.put(((Number) id).longValue(), "10.0." + host + "." + (addresses.size() + 1) + ":10911");
                }
                Reflect.call(data, "setCluster", "DefaultCluster");
                Reflect.call(data, "setBrokerName", row.get(0));
                Reflect.call(data, "setBrokerAddrs", addresses);
                brokerDatas.add(data);
            }
            Object route = api.routeClass.getConstructor().newInstance();
            Reflect.call(route, "setQueueDatas", queueDatas);
            Reflect.call(route, "setBrokerDatas", brokerDatas);
            Reflect.call(route, "setOrderTopicConf", json.get("orderTopicConf"));
            Reflect.call(route, "setFilterServerTable", new HashMap<String, List<String>>());
            return route;
        }

        /** A ThreadLocalIndex's Random seeded with ``seed`` and, unless null, ``stored`` stored. */
        static void pin(Object index, Object stored, Object seed) throws Exception {
            Reflect.fieldOfType(index.getClass(), Random.class).set(index, new Random(((Number) seed).longValue()));
            if (stored != null) {
                threadLocal(index).set(((Number) stored).intValue());
            }
        }

        @SuppressWarnings("unchecked")
        static ThreadLocal<Integer> threadLocal(Object index) throws Exception {
            return (ThreadLocal<Integer>) Reflect.fieldOfType(index.getClass(), ThreadLocal.class).get(index);
        }

        static Object stored(Object index) throws Exception {
            Integer value = threadLocal(index).get();
            return value == null ? null : (Object) (long) value;
        }

        /** One step; its answer, or null for a step with none. */
        Map<String, Object> run(Map<String, Object> step) throws Exception {
            String op = (String) step.get("op");
            Map<String, Object> out = new LinkedHashMap<>();
            switch (op) {
                case "select": {
                    Object last = step.get("lastBroker");
                    return selectLike(() -> api.selectResets
                        ? api.select.invoke(strategy, publishInfo, last, step.get("resetIndex"))
                        : api.select.invoke(strategy, publishInfo, last));
                }
                case "tp_select": {
                    Object last = step.get("lastBroker");
                    return selectLike(() -> Reflect.method(publishInfo.getClass(), "selectOneMessageQueue", String.class).invoke(publishInfo, last));
                }
                case "update": {
                    String broker = (String) step.get("broker");
                    String others = Json.write(table(broker));
                    Object latency = ((Number) step.get("latency")).longValue();
                    try {
                        if (api.updateReachable) {
                            api.update.invoke(strategy, broker, latency, step.get("isolation"), step.get("reachable"));
                        } else {
                            api.update.invoke(strategy, broker, latency, step.get("isolation"));
                        }
                    } catch (InvocationTargetException e) {
                        out.put("error", e.getCause().getClass().getName());
                        out.put("message", e.getCause().getMessage());
                    }
                    out.put("item", broker == null ? null : item(faultItems().get(broker)));
                    if (!others.equals(Json.write(table(broker)))) {
                        throw new IllegalStateException("an update of " + broker + " changed other fault items");
                    }
                    return out;
                }
                case "advance":
                    RecordClock.now += ((Number) step.get("ms")).longValue();
                    return null;
                case "set_index":
                    threadLocal(Reflect.call(publishInfo, "getSendWhichQueue")).set(((Number) step.get("value")).intValue());
                    return null;
                case "set_latency":
                    Reflect.call(strategy, "setSendLatencyFaultEnable", step.get("enable"));
                    return null;
                case "route":
                    publishInfo = publishInfo(step.get("route"), step.get("sendIndex"), step.get("sendIndexSeed"));
                    out.put("publishListRuns", runs());
                    return out;
                case "detect": {
                    network.resolve = Json.object(step.get("resolve"));
                    network.reachable = new HashSet<>(Json.list(step.get("reachableAddrs")));
                    if (api.detect != null) {
                        api.detect.invoke(tolerance);
                    }
                    out.put("tableAfter", table(null));
                    return out;
                }
                default:
                    throw new IllegalArgumentException("no such step: " + op);
            }
        }

        interface Call {
            Object call() throws Exception;
        }

        /** A select: the queue and its position in the publish list (by identity), or what was thrown; the counters after; what it changed. */
        Map<String, Object> selectLike(Call call) throws Exception {
            List<?> list = (List<?>) Reflect.call(publishInfo, "getMessageQueueList");
            List<Object> before = contents(list);
            String tableBefore = Json.write(table(null));
            Map<String, Object> out = new LinkedHashMap<>();
            try {
                MessageQueue got = (MessageQueue) call.call();
                out.put("queue", got == null ? null : queue(got.getBrokerName(), got.getQueueId()));
                Object index = null;
                for (int i = 0; got != null && i < list.size(); i++) {
                    if (list.get(i) == got) {
                        index = (long) i;
                        break;
                    }
                }
                out.put("listIndex", index);
            } catch (InvocationTargetException e) {
                out.put("error", e.getCause().getClass().getName());
                out.put("message", e.getCause().getMessage());
            }
            out.put("storedIndexAfter", stored(Reflect.call(publishInfo, "getSendWhichQueue")));
            if (!api.selectResets) {
                Field worst = Reflect.fieldOfTypeOrNull(tolerance.getClass(), indexClass());
                out.put("worstIndexAfter", worst == null ? null : stored(worst.get(tolerance)));
            }
            List<Object> after = contents(list);
            List<Object> mutated = new ArrayList<>();
            for (int i = 0; i < after.size(); i++) {
                if (i >= before.size() || !before.get(i).equals(after.get(i))) {
                    List<Object> change = new ArrayList<>();
                    change.add((long) i);
                    change.addAll((List<?>) after.get(i));
                    mutated.add(change);
                }
            }
            if (!mutated.isEmpty()) {
                out.put("listMutated", mutated);
            }
            Map<String, Object> table = table(null);
            if (!Json.write(table).equals(tableBefore)) {
                out.put("tableAfter", table);
            }
            return out;
        }

        static List<Object> contents(List<?> list) {
            List<Object> out = new ArrayList<>();
            for (Object item : list) {
                MessageQueue mq = (MessageQueue) item;
                out.add(queue(mq.getBrokerName(), mq.getQueueId()));
            }
            return out;
        }

        static List<Object> queue(String broker, int id) {
            List<Object> out = new ArrayList<>();
            out.add(broker);
            out.add((long) id);
            return out;
        }

        /** The publish list as runs [brokerName, n], each standing for brokerName/0 .. n-1. */
        List<Object> runs() throws Exception {
            List<Object> runs = new ArrayList<>();
            List<Object> last = null;
            for (Object item : (List<?>) Reflect.call(publishInfo, "getMessageQueueList")) {
                MessageQueue mq = (MessageQueue) item;
                if (last != null && last.get(0).equals(mq.getBrokerName()) && ((Long) last.get(1)) == mq.getQueueId()) {
                    last.set(1, (Long) last.get(1) + 1);
                } else if (mq.getQueueId() == 0) {
                    last = queue(mq.getBrokerName(), 1);
                    runs.add(last);
                } else {
                    throw new IllegalStateException("the publish list is not runs of brokerName/0 .. n-1: " + mq);
                }
            }
            return runs;
        }

        @SuppressWarnings("unchecked")
        Map<String, Object> faultItems() throws Exception {
            return (Map<String, Object>) Reflect.get(tolerance, "faultItemTable");
        }

        /** The fault table in its own iteration order, without ``except``'s item. */
        Map<String, Object> table(String except) throws Exception {
            Map<String, Object> out = new LinkedHashMap<>();
            for (Map.Entry<String, Object> entry : faultItems().entrySet()) {
                if (!entry.getKey().equals(except)) {
                    out.put(entry.getKey(), item(entry.getValue()));
                }
            }
            return out;
        }

        /** A FaultItem's latency and startTimestamp, and reachable and checkStamp where the release has them. */
        static Map<String, Object> item(Object item) throws Exception {
            if (item == null) {
                return null;
            }
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("latency", Reflect.get(item, "currentLatency"));
            out.put("startTimestamp", Reflect.get(item, "startTimestamp"));
            if (Reflect.field(item.getClass(), "reachableFlag") != null) {
                out.put("reachable", Reflect.get(item, "reachableFlag"));
                out.put("checkStamp", Reflect.get(item, "checkStamp"));
            }
            return out;
        }

        /** Whether two fault items compare equal now (pickOneAtLeast's sort then keeps the shuffle's order). */
        @SuppressWarnings({"unchecked", "rawtypes"})
        boolean tied() throws Exception {
            List<Object> items = new ArrayList<>(faultItems().values());
            for (int i = 0; i < items.size(); i++) {
                for (int j = i + 1; j < items.size(); j++) {
                    if (((Comparable) items.get(i)).compareTo(items.get(j)) == 0) {
                        return true;
                    }
                }
            }
            return false;
        }

        static long[] longs(Object json) {
            List<?> list = (List<?>) json;
            long[] out = new long[list.size()];
            for (int i = 0; i < out.length; i++) {
                out[i] = ((Number) list.get(i)).longValue();
            }
            return out;
        }
    }

    /** Reflection over classes whose shape changes between releases. */
    static final class Reflect {
        static Method method(Class<?> type, String name, int parameters) {
            for (Method method : type.getMethods()) {
                if (method.getName().equals(name) && method.getParameterCount() == parameters && !method.isBridge()) {
                    return method;
                }
            }
            return null;
        }

        static Method method(Class<?> type, String name, Class<?>... parameters) throws NoSuchMethodException {
            return type.getMethod(name, parameters);
        }

        /** ``target.name(args)``, the one public method of that name and arity; what it throws, unwrapped. */
        static Object call(Object target, String name, Object... args) throws Exception {
            Method method = method(target.getClass(), name, args.length);
            if (method == null) {
                throw new NoSuchMethodException(target.getClass().getName() + "." + name + " with " + args.length + " parameters");
            }
            try {
                return method.invoke(target, args);
            } catch (InvocationTargetException e) {
                Throwable cause = e.getCause();
                throw cause instanceof Exception ? (Exception) cause : new RuntimeException(cause);
            }
        }

        static Field field(Class<?> type, String name) {
            for (Class<?> at = type; at != null; at = at.getSuperclass()) {
                try {
                    Field field = at.getDeclaredField(name);
                    field.setAccessible(true);
                    return field;
                } catch (NoSuchFieldException e) {
                    // its superclass, then
                }
            }
            return null;
        }

        static Object get(Object target, String name) throws IllegalAccessException {
            Field field = field(target.getClass(), name);
            if (field == null) {
                throw new IllegalStateException(target.getClass().getName() + " has no field " + name);
            }
            Object value = field.get(target);
            return value instanceof Integer ? (Object) (long) (Integer) value : value;
        }

        static Field fieldOfTypeOrNull(Class<?> type, Class<?> of) {
            Field found = null;
            for (Field field : type.getDeclaredFields()) {
                if (field.getType() == of) {
                    if (found != null) {
                        throw new IllegalStateException(type.getName() + " has two fields of type " + of.getName());
                    }
                    found = field;
                }
            }
            if (found != null) {
                found.setAccessible(true);
            }
            return found;
        }

        static Field fieldOfType(Class<?> type, Class<?> of) {
            Field found = fieldOfTypeOrNull(type, of);
            if (found == null) {
                throw new IllegalStateException(type.getName() + " has no field of type " + of.getName());
            }
            return found;
        }

        static String signature(java.lang.reflect.Executable executable) {
            StringBuilder out = new StringBuilder(executable.getDeclaringClass().getSimpleName());
            if (executable instanceof Method) {
                out.append('.').append(executable.getName());
            }
            out.append('(');
            Class<?>[] types = executable.getParameterTypes();
            for (int i = 0; i < types.length; i++) {
                out.append(i == 0 ? "" : ", ").append(types[i].getSimpleName());
            }
            return out.append(')').toString();
        }
    }
}
