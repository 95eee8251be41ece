// A harness for pytest-rmq-conformance in Go, standard library only:
// AVG, AVG_BY_CIRCLE and CONSISTENT_HASH, and the rebalance sort, written from
// the Java client's behaviour (the sort is Java's own algorithm, ported in timsort.go:
// MessageQueue.compareTo overflows, and only Java's sort orders such lists as Java does).
// Build it and run the suite against it with
//
//	cd examples/harness-go && go build -o rmq-harness . && cd -
//	pytest --rmq-strategy="exec:examples/harness-go/rmq-harness"
//
// -broken (or RMQ_HARNESS_BROKEN) selects a deliberately wrong variant, which the suite must reject:
//
//	codepoint-sort  sorts strings by code point (Python's order), not by UTF-16 unit (Java's)
//	ring-after      routes a key to the first ring node strictly after it (> instead of >=)
//	off-by-one      AVG gives the extra queues to the clients after the first `mod`, not the first
package main

import (
	"bufio"
	"crypto/md5"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"unicode/utf16"
)

var broken = flag.String("broken", os.Getenv("RMQ_HARNESS_BROKEN"), "a deliberately wrong variant (codepoint-sort, ring-after, off-by-one)")

// Queue is a message queue, [topic, brokerName, queueId] on the wire.
type Queue struct {
	Topic, Broker string
	ID            int32
}

func (q *Queue) UnmarshalJSON(data []byte) error {
	var parts [3]json.RawMessage
	if err := json.Unmarshal(data, &parts); err != nil {
		return err
	}
	if err := json.Unmarshal(parts[0], &q.Topic); err != nil {
		return err
	}
	if err := json.Unmarshal(parts[1], &q.Broker); err != nil {
		return err
	}
	return json.Unmarshal(parts[2], &q.ID)
}

func (q Queue) MarshalJSON() ([]byte, error) {
	return json.Marshal([]interface{}{q.Topic, q.Broker, q.ID})
}

// String is Java's MessageQueue.toString, which the consistent-hash ring hashes.
func (q Queue) String() string {
	return fmt.Sprintf("MessageQueue [topic=%s, brokerName=%s, queueId=%d]", q.Topic, q.Broker, q.ID)
}

type request struct {
	Cmd      string                     `json:"cmd"`
	ID       int64                      `json:"id"`
	Strategy string                     `json:"strategy"`
	Params   map[string]json.RawMessage `json:"params"`
	MqAll    []Queue                    `json:"mqAll"`
	CidAll   []string                   `json:"cidAll"`
	Callers  []*string                  `json:"callers"`
}

var errIllegalArgument = errors.New("illegal argument")

func illegal(format string, args ...interface{}) error {
	return fmt.Errorf("%w: %s", errIllegalArgument, fmt.Sprintf(format, args...))
}

func indexOf(cids []string, cid string) int {
	for i, c := range cids {
		if c == cid {
			return i
		}
	}
	return -1
}

// checkArguments is the check every Java strategy makes first; it tells whether cid is a member.
func checkArguments(cid string, mqAll []Queue, cidAll []string) (int, error) {
	switch {
	case cid == "":
		return -1, illegal("currentCID is empty")
	case len(mqAll) == 0:
		return -1, illegal("mqAll is null or mqAll empty")
	case len(cidAll) == 0:
		return -1, illegal("cidAll is null or cidAll empty")
	}
	return indexOf(cidAll, cid), nil
}

type strategy func(params map[string]json.RawMessage, cid string, mqAll []Queue, cidAll []string) ([]Queue, error)

func averagely(_ map[string]json.RawMessage, cid string, mqAll []Queue, cidAll []string) ([]Queue, error) {
	index, err := checkArguments(cid, mqAll, cidAll)
	if err != nil || index < 0 {
		return []Queue{}, err
	}
	n, c := len(mqAll), len(cidAll)
	mod := n % c
	extra := mod > 0 && index < mod
	if *broken == "off-by-one" {
		extra = mod > 0 && index >= c-mod
	}
	size := n / c
	if n <= c {
		size = 1
	} else if extra {
		size++
	}
	start := index*size + mod
	if extra {
		start = index * size
	}
	out := []Queue{}
	for k := 0; k < size && start+k < n; k++ {
		out = append(out, mqAll[(start+k)%n])
	}
	return out, nil
}

func byCircle(_ map[string]json.RawMessage, cid string, mqAll []Queue, cidAll []string) ([]Queue, error) {
	index, err := checkArguments(cid, mqAll, cidAll)
	if err != nil || index < 0 {
		return []Queue{}, err
	}
	out := []Queue{}
	for p := index; p < len(mqAll); p += len(cidAll) {
		out = append(out, mqAll[p])
	}
	return out, nil
}

// ringKey is the default ring hash: the first four MD5 bytes of the UTF-8 text, big-endian, unsigned.
// (Java writes a lone surrogate as '?'; JSON decoding has already replaced it with U+FFFD here.)
func ringKey(text string) int64 {
	sum := md5.Sum([]byte(text))
	return int64(binary.BigEndian.Uint32(sum[:4]))
}

func consistentHash(params map[string]json.RawMessage, cid string, mqAll []Queue, cidAll []string) ([]Queue, error) {
	virtualNodeCnt := int64(10)
	if given, ok := params["virtualNodeCnt"]; ok {
		if err := json.Unmarshal(given, &virtualNodeCnt); err != nil {
			return nil, illegal("virtualNodeCnt %s: %v", given, err)
		}
	}
	if virtualNodeCnt < 0 {
		return nil, illegal("illegal virtualNodeCnt :%d", virtualNodeCnt)
	}
	if index, err := checkArguments(cid, mqAll, cidAll); err != nil || index < 0 {
		return []Queue{}, err
	}
	owners := map[int64]string{} // ring key -> client id; a later node on the same key replaces the earlier
	onRing := map[string]int64{} // client id -> its nodes on the ring; a listed-again client numbers on from there
	for _, member := range cidAll {
		first := onRing[member]
		for replica := first; replica < first+virtualNodeCnt; replica++ {
			key := ringKey(member + "-" + strconv.FormatInt(replica, 10))
			if previous, taken := owners[key]; taken {
				onRing[previous]--
			}
			owners[key] = member
			onRing[member]++
		}
	}
	keys := make([]int64, 0, len(owners))
	for key := range owners {
		keys = append(keys, key)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	out := []Queue{}
	if len(keys) == 0 {
		return out, nil
	}
	for _, mq := range mqAll {
		hash := ringKey(mq.String())
		at := sort.Search(len(keys), func(i int) bool {
			if *broken == "ring-after" {
				return keys[i] > hash
			}
			return keys[i] >= hash
		})
		if at == len(keys) {
			at = 0
		}
		if owners[keys[at]] == cid {
			out = append(out, mq)
		}
	}
	return out, nil
}

var strategies = map[string]strategy{"AVG": averagely, "AVG_BY_CIRCLE": byCircle, "CONSISTENT_HASH": consistentHash}

// compareStrings is Java's String.compareTo: UTF-16 code units, not code points.
func compareStrings(a, b string) int {
	var x, y []uint16
	if *broken == "codepoint-sort" {
		for _, r := range a {
			x = append(x, uint16(r>>5), uint16(r&31)) // keeps code point order, which UTF-16 does not
		}
		for _, r := range b {
			y = append(y, uint16(r>>5), uint16(r&31))
		}
	} else {
		x, y = utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	}
	for i := 0; i < len(x) && i < len(y); i++ {
		if x[i] != y[i] {
			return int(x[i]) - int(y[i])
		}
	}
	return len(x) - len(y)
}

// compareQueues is Java's MessageQueue.compareTo: topic, then broker name, then
// `this.queueId - o.queueId` in int arithmetic. That subtraction wraps around for ids far
// apart (Integer.MAX_VALUE - (-1) is negative), and so does Go's int32 subtraction: Java then
// ranks MAX_VALUE before -1, and javaSort reproduces what its sort makes of that.
func compareQueues(p, q Queue) int {
	if c := compareStrings(p.Topic, q.Topic); c != 0 {
		return c
	}
	if c := compareStrings(p.Broker, q.Broker); c != 0 {
		return c
	}
	return int(p.ID - q.ID) // int32 - int32 wraps, as in Java
}

func allocate(req request) map[string]interface{} {
	run, known := strategies[req.Strategy]
	if !known {
		return map[string]interface{}{"id": req.ID, "unsupported": req.Strategy + " is not implemented in this harness"}
	}
	answers := make([]map[string]interface{}, len(req.Callers))
	for i, caller := range req.Callers {
		cid := ""
		if caller != nil {
			cid = *caller
		}
		queues, err := run(req.Params, cid, req.MqAll, req.CidAll)
		switch {
		case errors.Is(err, errIllegalArgument):
			answers[i] = map[string]interface{}{"error": "illegal-argument", "message": err.Error()}
		case err != nil:
			answers[i] = map[string]interface{}{"error": "other", "message": err.Error()}
		default:
			answers[i] = map[string]interface{}{"queues": queues}
		}
	}
	return map[string]interface{}{"id": req.ID, "answers": answers}
}

// sorted is one list of a sort answer: the list sorted as Java's Collections.sort sorts it,
// or the IllegalArgumentException Java throws when its sort notices a broken comparator.
func sorted[T any](items []T, compare func(x, y T) int) interface{} {
	copied := append([]T{}, items...)
	if err := javaSort(copied, compare); err != nil {
		return map[string]interface{}{"error": "illegal-argument", "message": err.Error()}
	}
	return copied
}

func sortLists(req request) map[string]interface{} {
	answer := map[string]interface{}{"id": req.ID, "mqAll": nil, "cidAll": nil}
	if req.MqAll != nil {
		answer["mqAll"] = sorted(req.MqAll, compareQueues)
	}
	if req.CidAll != nil {
		answer["cidAll"] = sorted(req.CidAll, compareStrings) // strings keep the contract: any stable sort would do
	}
	return answer
}

func main() {
	flag.Parse()
	name := "go-example"
	if *broken != "" {
		name += "-" + *broken
	}
	in := bufio.NewReader(os.Stdin)
	out := json.NewEncoder(os.Stdout) // one object per line: Encode ends each with '\n'
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			var req request
			if jsonErr := json.Unmarshal(line, &req); jsonErr != nil {
				fmt.Fprintln(os.Stderr, "harness-go: cannot read request:", jsonErr)
				os.Exit(2)
			}
			var answer interface{}
			switch req.Cmd {
			case "hello":
				answer = map[string]interface{}{
					"protocol":       1,
					"implementation": map[string]string{"name": name, "language": "Go (" + runtime.Version() + ")", "version": "1.0.0"},
					"strategies":     []string{"AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH"},
					"sort":           true,
				}
			case "bye":
				return
			case "allocate":
				answer = allocate(req)
			case "sort":
				answer = sortLists(req)
			default:
				answer = map[string]interface{}{"id": req.ID, "unsupported": "unknown command " + req.Cmd}
			}
			if encodeErr := out.Encode(answer); encodeErr != nil {
				fmt.Fprintln(os.Stderr, "harness-go:", encodeErr)
				os.Exit(2)
			}
		}
		if err != nil {
			return
		}
	}
}
