// The 5.x gRPC part of the project's reference harness: asks the real PublishingLoadBalancer and
// SubscriptionLoadBalancer of the rocketmq-client-java jar on the class path.
//
// Reads scenarios, one JSON object a line, on stdin (GROUP_HASH: id, family, tags, group, queues;
// PUBLISH_ROUND_ROBIN and SUBSCRIBE_ROUND_ROBIN: id, family, tags, route, index, steps; answer
// fields are ignored) and writes one record a line on stdout
// (schemas/grpc-harness-record.schema.json), ASCII only. Argument 1 is the client's version. A
// scenario that updates the route, asked of a version whose balancers have no update() (5.0.0,
// 5.0.2), answers "unsupported", saying why.
//
// A route is a list of protobuf apache.rocketmq.v2.MessageQueue, as the proxy's answer carries
// it, given to the client's own TopicRouteData. The balancers' constructor that takes the start
// index and their update() are not public: they are reached by reflection, as a class of their
// package would call them. A queue in an answer is its position in the current route, by identity.
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import apache.rocketmq.v2.Address;
import apache.rocketmq.v2.AddressScheme;
import apache.rocketmq.v2.Broker;
import apache.rocketmq.v2.Endpoints;
import apache.rocketmq.v2.MessageQueue;
import apache.rocketmq.v2.Permission;
import apache.rocketmq.v2.Resource;
import org.apache.rocketmq.client.java.impl.consumer.SubscriptionLoadBalancer;
import org.apache.rocketmq.client.java.impl.producer.PublishingLoadBalancer;
import org.apache.rocketmq.client.java.route.MessageQueueImpl;
import org.apache.rocketmq.client.java.route.TopicRouteData;

public final class GrpcHarness {
    /** The encoding of a group whose hex the record carries in full. */
    static final int HEX_BYTES = 256;

    public static void main(String[] args) throws Exception {
        Records records = new Records();
        Balancers balancers = new Balancers();
        Map<String, Object> reference = Records.reference("client", "rocketmq-client-java " + args[0]);
        reference.put("calls", balancers.calls);
        records.serve(scenario -> {
            Map<String, Object> record = new LinkedHashMap<>();
            String family = String.valueOf(scenario.get("family"));
            for (String key : new String[] {"id", "family", "tags"}) {
                record.put(key, scenario.get(key));
            }
            if (family.equals("GROUP_HASH")) {
                record.put("group", scenario.get("group"));
                record.put("queues", scenario.get("queues"));
                record.put("expect", balancers.groupHash((String) scenario.get("group"), ((Number) scenario.get("queues")).intValue()));
            } else if (family.equals("PUBLISH_ROUND_ROBIN") || family.equals("SUBSCRIBE_ROUND_ROBIN")) {
                for (String key : new String[] {"route", "index", "steps"}) {
                    record.put(key, scenario.get(key));
                }
                if (balancers.publishingUpdate == null && updates(scenario)) {
                    record.put("unsupported", "this version's balancers have no update(TopicRouteData): a new route makes a new "
                        + "balancer whose index starts anew at random, which a scenario cannot pin");
                } else {
                    record.put("expect", balancers.play(family.startsWith("PUBLISH"), scenario));
                }
            } else {
                throw new IllegalArgumentException("no such family: " + family);
            }
            record.put("reference", reference);
            return record;
        });
    }

    static boolean updates(Map<String, Object> scenario) {
        for (Object step : Json.list(scenario.get("steps"))) {
            if ("update".equals(Json.object(step).get("op"))) {
                return true;
            }
        }
        return false;
    }

    static final class Balancers {
        final Constructor<PublishingLoadBalancer> publishing;
        final Constructor<SubscriptionLoadBalancer> subscription;
        final Method publishingUpdate;
        final Method subscriptionUpdate;
        final Object sipHash24;
        final Method hashBytes;
        final Method asLong;
        final Map<Integer, TopicRouteData> groupRoutes = new HashMap<>();
        final List<Object> calls = new ArrayList<>();

        Balancers() throws ReflectiveOperationException {
            publishing = hidden(PublishingLoadBalancer.class);
            subscription = hidden(SubscriptionLoadBalancer.class);
            publishingUpdate = update(PublishingLoadBalancer.class);
            subscriptionUpdate = update(SubscriptionLoadBalancer.class);
            // the Guava the client carries (relocated in its shaded jar), for the group's diagnostics
            Class<?> hashing;
            try {
                hashing = Class.forName("org.apache.rocketmq.shaded.com.google.common.hash.Hashing");
            } catch (ClassNotFoundException e) {
                hashing = Class.forName("com.google.common.hash.Hashing");
            }
            String guava = hashing.getPackage().getName() + ".";
            sipHash24 = hashing.getMethod("sipHash24").invoke(null);
            hashBytes = Class.forName(guava + "HashFunction").getMethod("hashBytes", byte[].class);
            asLong = Class.forName(guava + "HashCode").getMethod("asLong");
            for (String balancer : new String[] {"PublishingLoadBalancer", "SubscriptionLoadBalancer"}) {
                calls.add(publishing != null
                    ? balancer + "(AtomicInteger, TopicRouteData)"
                    : balancer + "(TopicRouteData), its index field set to the start index");
                if (publishingUpdate != null) {
                    calls.add(balancer + ".update(TopicRouteData)");
                }
            }
            calls.add("PublishingLoadBalancer.takeMessageQueues(Set, int)");
            calls.add("PublishingLoadBalancer.takeMessageQueueByMessageGroup(String)");
            calls.add("SubscriptionLoadBalancer.takeMessageQueue()");
            calls.add("TopicRouteData(List<apache.rocketmq.v2.MessageQueue>)");
            calls.add(hashing.getName() + ".sipHash24()");
        }

        /** The constructor that takes the start index, where the version has one (5.0.3 on). */
        static <T> Constructor<T> hidden(Class<T> type) {
            try {
                Constructor<T> constructor = type.getDeclaredConstructor(AtomicInteger.class, TopicRouteData.class);
                constructor.setAccessible(true);
                return constructor;
            } catch (NoSuchMethodException e) {
                return null;
            }
        }

        /** update(TopicRouteData), where the version has it (5.0.3 on): a new balancer sharing the index. */
        static Method update(Class<?> type) {
            try {
                Method method = type.getDeclaredMethod("update", TopicRouteData.class);
                method.setAccessible(true);
                return method;
            } catch (NoSuchMethodException e) {
                return null;
            }
        }

        /** A balancer of ``route`` whose index starts at ``index``: through the constructor that takes it, or the public one and its field. */
        Object balancer(boolean publish, AtomicInteger index, TopicRouteData route) throws ReflectiveOperationException {
            Constructor<?> constructor = publish ? publishing : subscription;
            if (constructor != null) {
                return constructor.newInstance(index, route);
            }
            Object balancer = (publish ? PublishingLoadBalancer.class : SubscriptionLoadBalancer.class).getConstructor(TopicRouteData.class).newInstance(route);
            Field field = balancer.getClass().getDeclaredField("index");
            field.setAccessible(true);
            field.set(balancer, index);
            return balancer;
        }

        /** The queue a message group lands on among ``queues`` READ_WRITE queues of one master, and the hash behind it. */
        Map<String, Object> groupHash(String group, int queues) throws Exception {
            TopicRouteData route = groupRoutes.get(queues);
            if (route == null) {
                List<Object> json = new ArrayList<>();
                for (int id = 0; id < queues; id++) {
                    json.add(groupQueue(id));
                }
                route = route(json);
                groupRoutes.put(queues, route);
            }
            PublishingLoadBalancer balancer = (PublishingLoadBalancer) balancer(true, new AtomicInteger(0), route);
            MessageQueueImpl got = balancer.takeMessageQueueByMessageGroup(group);
            byte[] utf8 = group.getBytes(StandardCharsets.UTF_8);
            Object hash = hashBytes.invoke(sipHash24, (Object) utf8);
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("index", position(route, got));
            out.put("sipHash24", String.valueOf(asLong.invoke(hash)));
            out.put("utf8Length", (long) utf8.length);
            if (utf8.length <= HEX_BYTES) {
                StringBuilder hex = new StringBuilder();
                for (byte b : utf8) {
                    hex.append(String.format("%02x", b & 0xff));
                }
                out.put("utf8", hex.toString());
            }
            return out;
        }

        static Map<String, Object> groupQueue(int id) {
            Map<String, Object> address = new LinkedHashMap<>();
            List<Object> hostPort = new ArrayList<>();
            hostPort.add("10.0.0.1");
            hostPort.add(8081L);
            List<Object> addresses = new ArrayList<>();
            addresses.add(hostPort);
            address.put("scheme", "IPv4");
            address.put("addresses", addresses);
            Map<String, Object> broker = new LinkedHashMap<>();
            broker.put("name", "broker-a");
            broker.put("id", 0L);
            broker.put("endpoints", address);
            Map<String, Object> queue = new LinkedHashMap<>();
            queue.put("queueId", (long) id);
            queue.put("permission", "READ_WRITE");
            queue.put("broker", broker);
            return queue;
        }

        /** One balancer from the route at the start index, then the steps in order. */
        Map<String, Object> play(boolean publish, Map<String, Object> scenario) throws Exception {
            TopicRouteData route = route(Json.list(scenario.get("route")));
            AtomicInteger index = new AtomicInteger(((Number) scenario.get("index")).intValue());
            Map<String, Object> out = new LinkedHashMap<>();
            Object balancer;
            try {
                balancer = balancer(publish, index, route);
            } catch (InvocationTargetException e) {
                out.put("error", e.getCause().getClass().getName());
                out.put("message", e.getCause().getMessage());
                return out;
            }
            out.put("filtered", filtered(balancer, route));
            List<Object> answers = new ArrayList<>();
            for (Object item : Json.list(scenario.get("steps"))) {
                Map<String, Object> step = Json.object(item);
                Map<String, Object> answer = new LinkedHashMap<>();
                String op = (String) step.get("op");
                if (!(op.equals("take") || op.equals("update") || (op.equals("group") && publish))) {
                    throw new IllegalArgumentException("no step " + op + " for this balancer");
                }
                try {
                    if (op.equals("take") && publish) {
                        Set<org.apache.rocketmq.client.java.route.Endpoints> excluded = new HashSet<>();
                        for (Object endpoints : Json.list(step.get("excluded"))) {
                            excluded.add(new org.apache.rocketmq.client.java.route.Endpoints(endpoints(Json.object(endpoints))));
                        }
                        List<Object> positions = new ArrayList<>();
                        for (MessageQueueImpl queue : ((PublishingLoadBalancer) balancer).takeMessageQueues(excluded, ((Number) step.get("count")).intValue())) {
                            positions.add(position(route, queue));
                        }
                        answer.put("queues", positions);
                    } else if (op.equals("take")) {
                        answer.put("queue", position(route, ((SubscriptionLoadBalancer) balancer).takeMessageQueue()));
                    } else if (op.equals("group") && publish) {
                        answer.put("queue", position(route, ((PublishingLoadBalancer) balancer).takeMessageQueueByMessageGroup((String) step.get("group"))));
                    } else {
                        TopicRouteData next = route(Json.list(step.get("route")));
                        Object updated = (publish ? publishingUpdate : subscriptionUpdate).invoke(balancer, next);
                        balancer = updated;
                        route = next;
                        answer.put("filtered", filtered(balancer, route));
                    }
                } catch (RuntimeException | InvocationTargetException e) {  // the balancer and route stay as they were
                    Throwable thrown = e instanceof InvocationTargetException ? e.getCause() : e;
                    answer.clear();
                    answer.put("error", thrown.getClass().getName());
                    answer.put("message", thrown.getMessage());
                }
                answers.add(answer);
            }
            out.put("steps", answers);
            out.put("indexAfter", (long) index.get());
            return out;
        }

        /** The positions in ``route`` of the queues the balancer kept, by identity. */
        @SuppressWarnings("unchecked")
        static List<Object> filtered(Object balancer, TopicRouteData route) throws ReflectiveOperationException {
            Field field = balancer.getClass().getDeclaredField("messageQueues");
            field.setAccessible(true);
            List<Object> out = new ArrayList<>();
            for (MessageQueueImpl queue : (List<MessageQueueImpl>) field.get(balancer)) {
                out.add(position(route, queue));
            }
            return out;
        }

        static Object position(TopicRouteData route, MessageQueueImpl queue) {
            List<MessageQueueImpl> queues = route.getMessageQueues();
            for (int i = 0; i < queues.size(); i++) {
                if (queues.get(i) == queue) {
                    return (long) i;
                }
            }
            throw new IllegalStateException("a balancer answered a queue that is not in its route: " + queue);
        }

        /** The client's TopicRouteData of a route given as protobuf MessageQueues, topic TopicTest. */
        static TopicRouteData route(List<Object> json) {
            List<MessageQueue> queues = new ArrayList<>();
            for (Object item : json) {
                Map<String, Object> queue = Json.object(item);
                Map<String, Object> broker = Json.object(queue.get("broker"));
                queues.add(MessageQueue.newBuilder()
                    .setTopic(Resource.newBuilder().setName("TopicTest"))
                    .setId(((Number) queue.get("queueId")).intValue())
                    .setPermission(Permission.valueOf((String) queue.get("permission")))
                    .setBroker(Broker.newBuilder()
                        .setName((String) broker.get("name"))
                        .setId(((Number) broker.get("id")).intValue())
                        .setEndpoints(endpoints(Json.object(broker.get("endpoints")))))
                    .build());
            }
            return new TopicRouteData(queues);
        }

        static Endpoints endpoints(Map<String, Object> json) {
            Endpoints.Builder builder = Endpoints.newBuilder().setScheme(AddressScheme.valueOf((String) json.get("scheme")));
            for (Object item : Json.list(json.get("addresses"))) {
                List<?> hostPort = (List<?>) item;
                builder.addAddresses(Address.newBuilder().setHost((String) hostPort.get(0)).setPort(((Number) hostPort.get(1)).intValue()));
            }
            return builder.build();
        }
    }
}
