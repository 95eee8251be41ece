// The harness of the Go client of RocketMQ 5 (github.com/apache/rocketmq-clients/golang/v5) for
// the suite's exec protocol (docs/reference/pipe.md), built by clients/go/build.py against the
// version under test. It answers the three gRPC balancer families through the client's own code,
// a route entering where the client receives it, as the proxy's QueryRouteResponse:
//
//   - the route is a list of the module's protobuf v2.MessageQueue (topic TopicTest), answered by
//     the proxy the client asks (QueryRoute; its telemetry stream takes the settings the client
//     sends each broker first); the producer (GROUP_HASH, PUBLISH_ROUND_ROBIN) or the simple
//     consumer (SUBSCRIBE_ROUND_ROBIN), made by NewProducer / NewSimpleConsumer, builds its
//     balancer from it as a first send or receive does (getPublishingTopicRouteResult,
//     getSubscriptionTopicRouteResult, through getMessageQueues and queryRoute), and keeps what
//     that code keeps: RMQConformanceNew, which build.py adds to the module's root package;
//   - the start index is set in the balancer the client built (its own start is the field's zero
//     value); a take steps its index and then reads one further (Inc(), then Mod(next+1), in
//     loadBalancer.go), so where Java's AtomicInteger holds i and reads i, it must hold i - 2: the
//     hello declares indexOffsets -2, the suite starts it at Java's start - 2 and reads it back + 2
//     (the counter rule: the next value the client reads is the one Java's next take reads);
//   - a publishing take is the producer's takeMessageQueues (the count is its retry policy's
//     attempts), with the excluded endpoints isolated as a failed send isolates one (each
//     address, as utils.ParseAddress writes it); a group is the balancer's
//     TakeMessageQueueByMessageGroup, a subscription take its TakeMessageQueue, as the producer
//     and the simple consumer call them; an update is one pass of the client's scheduled route
//     refresh (CopyAndUpdate when the route changed);
//   - queues are answered by their position in the current route (the route's own object, or,
//     where the refresh left the old balancer on an equal route, the first equal queue).
//
// An error the client returns is an answer ("messageQueues is empty", "rocketmq: no available
// brokers": a route with nothing to keep, illegal-argument; anything else other), and so is a
// panic, recovered. unsupported, never a made-up answer: a request with a lone UTF-16 surrogate
// in a string (a Go string cannot hold one: Java hashes it as '?'), a number that does not fit
// the protobuf's int32, and every other command.
//
// The versions the proxy serves differ in the balancers' index (an int32 moved by sync/atomic in
// v5.1.2, a go.uber.org/atomic Int32 from v5.1.3: the hook reaches it by reflection and asserts
// the Load/Store methods it needs) and in how TakeMessageQueues takes the isolated endpoints (a
// sync.Map by value in v5.1.2, by pointer later: the producer's own takeMessageQueues is called,
// which passes its field as its version's balancer wants it).
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"runtime/debug"
	"strings"

	"google.golang.org/protobuf/proto"

	golang "github.com/apache/rocketmq-clients/golang/v5"
	v2 "github.com/apache/rocketmq-clients/golang/v5/protocol/v2"
)

const module = "github.com/apache/rocketmq-clients/golang/v5"

// where Java's index holds i, the client's holds i - 2 (it reads its stored value + 2)
const indexOffset = -2

type endpointsJSON struct {
	Scheme    string
	Addresses [][]json.RawMessage
}

type queueJSON struct {
	QueueID    int64 `json:"queueId"`
	Permission string
	Broker     struct {
		Name      string
		ID        int64 `json:"id"`
		Endpoints endpointsJSON
	}
}

type stepJSON struct {
	Op       string
	Excluded []endpointsJSON
	Count    int64
	Group    string
	Route    []queueJSON
}

type request struct {
	Cmd      string
	ID       int
	Strategy string
	Groups   []string
	Queues   int
	Route    []queueJSON
	Index    int64
	Steps    []stepJSON
}

// a \uXXXX surrogate escape that is not half of a pair
var loneSurrogate = regexp.MustCompile(`\\u[dD][89abAB][0-9a-fA-F]{2}(?:\\u[dD][c-fC-F][0-9a-fA-F]{2})?|\\u[dD][c-fC-F][0-9a-fA-F]{2}`)

func hasLoneSurrogate(line []byte) bool {
	for _, found := range loneSurrogate.FindAll(line, -1) {
		if len(found) != 12 {
			return true
		}
	}
	return false
}

func version() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == module {
				return dep.Version
			}
		}
	}
	return "unknown"
}

// what cannot enter the client as its protobuf holds it
type unsupported string

func (u unsupported) Error() string { return string(u) }

func int32Of(value int64, what string) (int32, error) {
	if value < math.MinInt32 || value > math.MaxInt32 {
		return 0, unsupported(fmt.Sprintf("%s %d does not fit the protobuf's int32", what, value))
	}
	return int32(value), nil
}

func endpoints(data endpointsJSON) (*v2.Endpoints, error) {
	scheme, ok := v2.AddressScheme_value[data.Scheme]
	if !ok {
		return nil, unsupported("no AddressScheme " + data.Scheme)
	}
	built := &v2.Endpoints{Scheme: v2.AddressScheme(scheme), Addresses: []*v2.Address{}}
	for _, pair := range data.Addresses {
		if len(pair) != 2 {
			return nil, unsupported(fmt.Sprintf("an address of %d parts", len(pair)))
		}
		var host string
		var port int64
		if err := json.Unmarshal(pair[0], &host); err != nil {
			return nil, unsupported("address host: " + err.Error())
		}
		if err := json.Unmarshal(pair[1], &port); err != nil {
			return nil, unsupported("address port: " + err.Error())
		}
		port32, err := int32Of(port, "port")
		if err != nil {
			return nil, err
		}
		built.Addresses = append(built.Addresses, &v2.Address{Host: host, Port: port32})
	}
	return built, nil
}

// a route as the proxy's QueryRouteResponse carries it: one protobuf MessageQueue per queue
func route(queues []queueJSON) ([]*v2.MessageQueue, error) {
	built := make([]*v2.MessageQueue, 0, len(queues))
	for _, queue := range queues {
		permission, ok := v2.Permission_value[queue.Permission]
		if !ok {
			return nil, unsupported("no Permission " + queue.Permission)
		}
		id, err := int32Of(queue.QueueID, "queueId")
		if err != nil {
			return nil, err
		}
		brokerID, err := int32Of(queue.Broker.ID, "broker id")
		if err != nil {
			return nil, err
		}
		at, err := endpoints(queue.Broker.Endpoints)
		if err != nil {
			return nil, err
		}
		built = append(built, &v2.MessageQueue{
			Topic:      &v2.Resource{Name: "TopicTest"},
			Id:         id,
			Permission: v2.Permission(permission),
			Broker:     &v2.Broker{Name: queue.Broker.Name, Id: brokerID, Endpoints: at},
		})
	}
	return built, nil
}

// a group's route: queues writable queues of one master broker, queue ids 0..
func groupRoute(count int) []*v2.MessageQueue {
	built := make([]*v2.MessageQueue, 0, count)
	for id := 0; id < count; id++ {
		built = append(built, &v2.MessageQueue{
			Topic:      &v2.Resource{Name: "TopicTest"},
			Id:         int32(id),
			Permission: v2.Permission_READ_WRITE,
			Broker: &v2.Broker{Name: "broker-a", Id: 0, Endpoints: &v2.Endpoints{
				Scheme: v2.AddressScheme_IPv4, Addresses: []*v2.Address{{Host: "10.0.0.1", Port: 8081}},
			}},
		})
	}
	return built
}

// a queue's position in the route: the route's own object, else the first equal queue (null:
// none)
func position(route []*v2.MessageQueue, queue *v2.MessageQueue) any {
	for at, item := range route {
		if item == queue {
			return at
		}
	}
	for at, item := range route {
		if queue != nil && proto.Equal(item, queue) {
			return at
		}
	}
	return nil
}

func positions(route []*v2.MessageQueue, queues []*v2.MessageQueue) []any {
	out := make([]any, 0, len(queues))
	for _, queue := range queues {
		out = append(out, position(route, queue))
	}
	return out
}

// a route with nothing to keep, as the client says it
func illegalArgument(message string) bool {
	return message == "messageQueues is empty" || strings.Contains(message, "rocketmq: no available brokers")
}

func errorAnswer(err error) map[string]any {
	if illegalArgument(err.Error()) {
		return map[string]any{"error": "illegal-argument", "message": err.Error()}
	}
	return map[string]any{"error": "other", "message": err.Error()}
}

// one call of the client's code: its answer, its error, or its panic as an error
func try(call func() (map[string]any, error)) (answer map[string]any) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "rocketmq-clients-golang harness: recovered panic: %v\n%s", r, debug.Stack())
			answer = map[string]any{"error": "other", "message": fmt.Sprint("panic: ", r)}
		}
	}()
	got, err := call()
	if err != nil {
		return errorAnswer(err)
	}
	return got
}

func group(r request) map[string]any {
	if r.Queues < 0 {
		return map[string]any{"id": r.ID, "unsupported": fmt.Sprintf("a route of %d queues", r.Queues)}
	}
	data := groupRoute(r.Queues)
	var client *golang.RMQConformanceClient
	built := try(func() (map[string]any, error) {
		var err error
		client, err = golang.RMQConformanceNew(true, data)
		return nil, err
	})
	if client != nil {
		defer client.Close()
	}
	answers := make([]any, 0, len(r.Groups))
	for _, key := range r.Groups {
		if built != nil { // the producer could not build its balancer: each group is its error
			answers = append(answers, built)
			continue
		}
		answers = append(answers, try(func() (map[string]any, error) {
			queues, err := client.Group(key)
			if err != nil {
				return nil, err
			}
			if len(queues) == 0 {
				return map[string]any{"index": nil}, nil
			}
			return map[string]any{"index": position(data, queues[0])}, nil
		}))
	}
	return map[string]any{"id": r.ID, "answers": answers}
}

func balance(r request) map[string]any {
	publishing := r.Strategy == "PUBLISH_ROUND_ROBIN"
	if !publishing && r.Strategy != "SUBSCRIBE_ROUND_ROBIN" {
		return map[string]any{"id": r.ID, "unsupported": "no balancer of " + r.Strategy}
	}
	start, err := int32Of(r.Index, "index")
	if err != nil {
		return map[string]any{"id": r.ID, "unsupported": err.Error()}
	}
	current, err := route(r.Route)
	if err != nil {
		return map[string]any{"id": r.ID, "unsupported": "route: " + err.Error()}
	}
	// every step's input first: a step that cannot enter the client leaves the case unsupported
	routes := make([][]*v2.MessageQueue, len(r.Steps))
	excluded := make([][]*v2.Endpoints, len(r.Steps))
	counts := make([]int32, len(r.Steps))
	for at, step := range r.Steps {
		switch {
		case step.Op == "update":
			if routes[at], err = route(step.Route); err != nil {
				return map[string]any{"id": r.ID, "unsupported": fmt.Sprintf("step %d: %v", at, err)}
			}
		case step.Op == "take" && publishing:
			if counts[at], err = int32Of(step.Count, "count"); err != nil {
				return map[string]any{"id": r.ID, "unsupported": fmt.Sprintf("step %d: %v", at, err)}
			}
			for _, data := range step.Excluded {
				at2, err := endpoints(data)
				if err != nil {
					return map[string]any{"id": r.ID, "unsupported": fmt.Sprintf("step %d: %v", at, err)}
				}
				excluded[at] = append(excluded[at], at2)
			}
		case step.Op == "take" || (step.Op == "group" && publishing):
		case step.Op == "group":
			return map[string]any{"id": r.ID, "unsupported": "the simple consumer's balancer takes no message group"}
		default:
			return map[string]any{"id": r.ID, "unsupported": "no step " + step.Op}
		}
	}
	var client *golang.RMQConformanceClient
	var filtered []any
	built := try(func() (map[string]any, error) {
		var err error
		if client, err = golang.RMQConformanceNew(publishing, current); err != nil {
			return nil, err
		}
		if err = client.SetIndex(start); err != nil {
			return nil, err
		}
		kept, err := client.Kept()
		filtered = positions(current, kept)
		return nil, err
	})
	if client != nil {
		defer client.Close()
	}
	if built != nil {
		return map[string]any{"id": r.ID, "error": built["error"], "message": built["message"]}
	}
	outcomes := make([]any, 0, len(r.Steps))
	for at, step := range r.Steps {
		outcomes = append(outcomes, try(func() (map[string]any, error) {
			switch {
			case step.Op == "update":
				if err := client.Refresh(routes[at]); err != nil {
					return nil, err
				}
				current = routes[at]
				kept, err := client.Kept()
				if err != nil {
					return nil, err
				}
				return map[string]any{"filtered": positions(current, kept)}, nil
			case step.Op == "group":
				queues, err := client.Group(step.Group)
				if err != nil {
					return nil, err
				}
				if len(queues) == 0 {
					return nil, errors.New("TakeMessageQueueByMessageGroup returned no queue")
				}
				return map[string]any{"queue": position(current, queues[0])}, nil
			case publishing:
				queues, err := client.Take(excluded[at], counts[at])
				if err != nil {
					return nil, err
				}
				return map[string]any{"queues": positions(current, queues)}, nil
			default:
				queue, err := client.TakeOne()
				if err != nil {
					return nil, err
				}
				return map[string]any{"queue": position(current, queue)}, nil
			}
		}))
	}
	var after int32
	if read := try(func() (map[string]any, error) {
		var err error
		after, err = client.Index()
		return nil, err
	}); read != nil {
		return map[string]any{"id": r.ID, "error": "other", "message": fmt.Sprint("reading the index: ", read["message"])}
	}
	return map[string]any{"id": r.ID, "filtered": filtered, "outcomes": outcomes, "indexAfter": after}
}

func main() {
	in, out := bufio.NewReaderSize(os.Stdin, 1<<20), json.NewEncoder(os.Stdout)
	out.SetEscapeHTML(false)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) == 0 && err != nil {
			return
		}
		var r request
		if err := json.Unmarshal(line, &r); err != nil {
			fmt.Fprintln(os.Stderr, "rocketmq-clients-golang harness: not a request:", err)
			os.Exit(2)
		}
		var answer map[string]any
		switch r.Cmd {
		case "hello":
			answer = map[string]any{
				"protocol":       1,
				"implementation": map[string]string{"name": module, "language": "Go", "version": version(), "homepage": "https://github.com/apache/rocketmq-clients"},
				"strategies":     []string{"GROUP_HASH", "PUBLISH_ROUND_ROBIN", "SUBSCRIBE_ROUND_ROBIN"},
				"sort":           false,
				"indexOffsets":   map[string]int{"PUBLISH_ROUND_ROBIN": indexOffset, "SUBSCRIBE_ROUND_ROBIN": indexOffset},
			}
		case "bye":
			return
		case "group", "balance":
			if hasLoneSurrogate(line) {
				answer = map[string]any{"id": r.ID, "unsupported": "a lone UTF-16 surrogate in a string, which a Go string cannot hold"}
			} else if r.Cmd == "group" {
				answer = group(r)
			} else {
				answer = balance(r)
			}
		default:
			answer = map[string]any{"id": r.ID, "unsupported": "the Go 5.x client has no " + r.Cmd + " (its balancers are the gRPC families)"}
		}
		if err := out.Encode(answer); err != nil {
			fmt.Fprintln(os.Stderr, "rocketmq-clients-golang harness:", err)
			os.Exit(2)
		}
	}
}
