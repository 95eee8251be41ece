// The harness of rocketmq-client-go (github.com/apache/rocketmq-client-go/v2) for the suite's
// exec protocol (docs/reference/pipe.md), built by clients/go/build.py against the version under
// test. It calls the module's own code and answers what it returned:
//
//   - allocate: the strategy functions of package consumer (AllocateByAveragely, ...Circle,
//     AllocateByConsistentHash, AllocateByConfig, AllocateByMachineRoom), on the request's lists,
//     each queue a primitive.MessageQueue; null is Go's zero value (a nil slice, an empty
//     currentCID, which the strategies test for), and a nil slice returned is answered as null.
//   - sort: the lists the consumer's own doBalance hands its strategy, the group's members as its
//     broker answers GET_CONSUMER_LIST_BY_GROUP (RMQConformanceRebalanceSort, which build.py adds
//     to package consumer).
//   - select, SELECTOR_HASH: producer.NewHashQueueSelector's Select of a message whose sharding
//     key is the argument, on TopicTest/broker-a/0..n-1. It hashes a string (FNV-1a of its
//     bytes), so another argument is notRun, and so is the empty key, which it hands to its
//     random selector; SELECTOR_RANDOM is notRun (math/rand seeded by the clock: Java's seed
//     cannot be given). It has no fault strategy at all (no latency fault tolerance: its send
//     loop takes a round robin selector), so FAULT_STRATEGY is not among its strategies.
//
// Not in the hello: MACHINE_ROOM_NEARBY (AllocateByMachineNearby takes no room resolver nor inner
// strategy: it is AllocateByAveragely, and a request for it is answered unsupported). unsupported,
// never a made-up answer: a request with a lone UTF-16 surrogate in a string (a Go string cannot
// hold one); sort hands null and empty lists back (doBalance sorts nothing then).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"runtime/debug"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
)

const module = "github.com/apache/rocketmq-client-go/v2"

type request struct {
	Cmd           string
	ID            int
	Strategy      string
	Params        map[string]json.RawMessage
	ConsumerGroup *string
	MqAll         []json.RawMessage
	CidAll        []string
	Callers       []*string
	Arg           *struct {
		Type  string
		Value json.RawMessage
	}
	QueueCounts []int
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

func queue(raw json.RawMessage) (*primitive.MessageQueue, error) {
	var parts [3]json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		return nil, err
	}
	mq := &primitive.MessageQueue{}
	if err := json.Unmarshal(parts[0], &mq.Topic); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(parts[1], &mq.BrokerName); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(parts[2], &mq.QueueId); err != nil {
		return nil, err
	}
	return mq, nil
}

func queues(raws []json.RawMessage) ([]*primitive.MessageQueue, error) {
	if raws == nil {
		return nil, nil
	}
	out := make([]*primitive.MessageQueue, 0, len(raws))
	for _, raw := range raws {
		mq, err := queue(raw)
		if err != nil {
			return nil, err
		}
		out = append(out, mq)
	}
	return out, nil
}

func queueJSON(mqs []*primitive.MessageQueue) []any {
	out := make([]any, 0, len(mqs))
	for _, mq := range mqs {
		out = append(out, []any{mq.Topic, mq.BrokerName, mq.QueueId})
	}
	return out
}

// the module's strategy for a request, or why it has none
func strategy(r request) (consumer.AllocateStrategy, string) {
	switch r.Strategy {
	case "AVG":
		return consumer.AllocateByAveragely, ""
	case "AVG_BY_CIRCLE":
		return consumer.AllocateByAveragelyCircle, ""
	case "CONSISTENT_HASH":
		var count int
		if err := json.Unmarshal(r.Params["virtualNodeCnt"], &count); err != nil {
			return nil, "virtualNodeCnt: " + err.Error()
		}
		return consumer.AllocateByConsistentHash(count), ""
	case "CONFIG":
		var raws []json.RawMessage
		if err := json.Unmarshal(r.Params["messageQueueList"], &raws); err != nil {
			return nil, "messageQueueList: " + err.Error()
		}
		list, err := queues(raws)
		if err != nil {
			return nil, "messageQueueList: " + err.Error()
		}
		return consumer.AllocateByConfig(list), ""
	case "MACHINE_ROOM":
		var rooms []string
		if err := json.Unmarshal(r.Params["consumeridcs"], &rooms); err != nil {
			return nil, "consumeridcs: " + err.Error()
		}
		return consumer.AllocateByMachineRoom(rooms), ""
	}
	return nil, ""
}

func allocate(r request) map[string]any {
	if r.Strategy == "MACHINE_ROOM_NEARBY" {
		return map[string]any{"id": r.ID, "unsupported": "AllocateByMachineNearby takes no machine-room resolver nor inner strategy: it is AllocateByAveragely"}
	}
	build, problem := strategy(r)
	if build == nil {
		if problem == "" {
			return map[string]any{"id": r.ID, "unsupported": "rocketmq-client-go has no " + r.Strategy}
		}
		return map[string]any{"id": r.ID, "unsupported": problem}
	}
	mqAll, err := queues(r.MqAll)
	if err != nil {
		return map[string]any{"id": r.ID, "unsupported": "mqAll: " + err.Error()}
	}
	group := ""
	if r.ConsumerGroup != nil {
		group = *r.ConsumerGroup
	}
	answers := []any{}
	for _, caller := range r.Callers {
		cid := "" // a null currentCID: Go's zero value
		if caller != nil {
			cid = *caller
		}
		answers = append(answers, call(build, group, cid, mqAll, r.CidAll))
	}
	return map[string]any{"id": r.ID, "answers": answers}
}

// one call of the module's strategy on fresh copies of the lists; a panic is its exception
func call(build consumer.AllocateStrategy, group, caller string, mqAll []*primitive.MessageQueue, cidAll []string) (answer map[string]any) {
	defer func() {
		if r := recover(); r != nil {
			answer = map[string]any{"error": "other", "message": fmt.Sprint(r)}
		}
	}()
	var mqs []*primitive.MessageQueue
	if mqAll != nil {
		mqs = append([]*primitive.MessageQueue{}, mqAll...)
	}
	var cids []string
	if cidAll != nil {
		cids = append([]string{}, cidAll...)
	}
	got := build(group, caller, mqs, cids)
	if got == nil {
		return map[string]any{"null": true}
	}
	return map[string]any{"queues": queueJSON(got)}
}

func sort(r request) map[string]any {
	answer := map[string]any{"id": r.ID}
	// doBalance hands the strategy both lists at once: each is sorted beside a one-item other
	if r.MqAll == nil {
		answer["mqAll"] = nil
	} else if len(r.MqAll) == 0 {
		answer["mqAll"] = []any{}
	} else if mqAll, err := queues(r.MqAll); err != nil {
		answer["mqAll"] = map[string]any{"error": "other", "message": err.Error()}
	} else {
		mqs, _ := consumer.RMQConformanceRebalanceSort(mqAll, []string{"rmq-conformance@1"})
		answer["mqAll"] = sorted(mqs != nil, queueJSON(mqs))
	}
	if r.CidAll == nil {
		answer["cidAll"] = nil
	} else if len(r.CidAll) == 0 {
		answer["cidAll"] = []any{}
	} else {
		_, cids := consumer.RMQConformanceRebalanceSort([]*primitive.MessageQueue{{Topic: "TopicTest", BrokerName: "broker-a"}}, append([]string{}, r.CidAll...))
		answer["cidAll"] = sorted(cids != nil, cids)
	}
	return answer
}

// the longest list a select is run on (Java's harness answers for any int: its list is virtual)
const maxQueues = 1 << 20

func selectQueues(r request) map[string]any {
	answers := []any{}
	for _, count := range r.QueueCounts {
		answers = append(answers, selectOne(r, count))
	}
	return map[string]any{"id": r.ID, "answers": answers}
}

func selectOne(r request, count int) (answer map[string]any) {
	if r.Strategy == "SELECTOR_RANDOM" {
		return map[string]any{"notRun": "producer.NewRandomQueueSelector seeds math/rand with the clock: Java's Random seed cannot be given"}
	}
	if r.Arg == nil || r.Arg.Type != "string" {
		kind := "null"
		if r.Arg != nil {
			kind = r.Arg.Type
		}
		return map[string]any{"notRun": "rocketmq-client-go hashes a message's sharding key, a string; it takes no " + kind + " argument"}
	}
	var key string
	if err := json.Unmarshal(r.Arg.Value, &key); err != nil {
		return map[string]any{"notRun": "the argument's value is not a string: " + err.Error()}
	}
	if key == "" {
		return map[string]any{"notRun": "an empty sharding key is none to rocketmq-client-go: the message goes to its random selector"}
	}
	if count > maxQueues {
		return map[string]any{"notRun": fmt.Sprintf("a Go slice holds every queue: %d of them would take %d GB (lists up to %d are run)", count, count*56>>30, maxQueues)}
	}
	defer func() {
		if r := recover(); r != nil {
			answer = map[string]any{"error": "other", "message": fmt.Sprint(r)}
		}
	}()
	mqs := make([]*primitive.MessageQueue, count)
	for id := range mqs {
		mqs[id] = &primitive.MessageQueue{Topic: "TopicTest", BrokerName: "broker-a", QueueId: id}
	}
	msg := primitive.NewMessage("TopicTest", nil).WithShardingKey(key)
	var got *primitive.MessageQueue
	switch selector := any(producer.NewHashQueueSelector()).(type) {
	case interface { // v2.1.2 on: the broker of the last attempt too
		Select(*primitive.Message, []*primitive.MessageQueue, string) *primitive.MessageQueue
	}:
		got = selector.Select(msg, mqs, "")
	case interface {
		Select(*primitive.Message, []*primitive.MessageQueue) *primitive.MessageQueue
	}:
		got = selector.Select(msg, mqs)
	}
	for at, mq := range mqs {
		if mq == got {
			return map[string]any{"index": at}
		}
	}
	return map[string]any{"index": nil}
}

// a sorted list, or the error of a doBalance that never reached its strategy
func sorted(reached bool, list any) any {
	if !reached {
		return map[string]any{"error": "other", "message": "doBalance did not reach its strategy"}
	}
	return list
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
			fmt.Fprintln(os.Stderr, "rocketmq-client-go harness: not a request:", err)
			os.Exit(2)
		}
		var answer map[string]any
		switch r.Cmd {
		case "hello":
			answer = map[string]any{
				"protocol":       1,
				"implementation": map[string]string{"name": module, "language": "Go", "version": version(), "homepage": "https://github.com/apache/rocketmq-client-go"},
				"strategies":     []string{"AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH", "CONFIG", "MACHINE_ROOM", "SELECTOR_HASH", "SELECTOR_RANDOM"},
				"sort":           true,
			}
		case "bye":
			return
		case "allocate", "sort", "select":
			if hasLoneSurrogate(line) {
				answer = map[string]any{"id": r.ID, "unsupported": "a lone UTF-16 surrogate in a string, which a Go string cannot hold"}
			} else if r.Cmd == "allocate" {
				answer = allocate(r)
			} else if r.Cmd == "sort" {
				answer = sort(r)
			} else {
				answer = selectQueues(r)
			}
		default:
			answer = map[string]any{"id": r.ID, "unsupported": "rocketmq-client-go answers no " + r.Cmd}
		}
		if err := out.Encode(answer); err != nil {
			fmt.Fprintln(os.Stderr, "rocketmq-client-go harness:", err)
			os.Exit(2)
		}
	}
}
