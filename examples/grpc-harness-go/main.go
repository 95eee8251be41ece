// A harness for pytest-rmq-conformance in Go, standard library only: the load balancers of the
// 5.x gRPC Java client (apache/rocketmq-clients), written from the Java client's behaviour.
// PublishingLoadBalancer answers GROUP_HASH (takeMessageQueueByMessageGroup, through `group`)
// and PUBLISH_ROUND_ROBIN (takeMessageQueues, through `balance`); SubscriptionLoadBalancer
// answers SUBSCRIBE_ROUND_ROBIN (takeMessageQueue, through `balance`).
//
// Three things a port gets wrong easily, and how this one keeps Java's behaviour:
//   - Strings: Java hashes group.getBytes(UTF_8) of a UTF-16 string, where a lone surrogate is
//     one '?' byte and a surrogate pair one 4-byte character. encoding/json turns "\ud800" into
//     U+FFFD, so every string of a request is decoded here from its raw JSON text, keeping its
//     UTF-16 code units (javaString).
//   - The hash: SipHash-2-4 (Guava's Hashing.sipHash24(), key bytes 00..0f) is computed in
//     uint64, and its 8 output bytes read little-endian as a signed long (int64), before
//     LongMath.mod: a remainder in [0, n) whatever the sign.
//   - The index: Java's AtomicInteger is an int32 here, so getAndIncrement wraps from
//     Integer.MAX_VALUE to Integer.MIN_VALUE as Java's does, and so does the loop's next++.
//
// Build it outside the repository and run the suite with
//
//	cd examples/grpc-harness-go && go build -o /tmp/rmq-grpc-harness . && cd -
//	pytest --rmq-strategy="exec:/tmp/rmq-grpc-harness"
//
// -broken=VARIANT (or RMQ_HARNESS_BROKEN) selects a deliberately wrong variant, which the suite must reject:
//
//	unsigned-modulo  the hash taken as an unsigned 64-bit number before the modulo
//	byte-order       the 8 bytes of the SipHash output read big-endian (still signed)
//	code-points      hashes the UTF-32LE code points (4 bytes each) instead of Java's UTF-8
//	keeps-slaves     the balancers' filter keeps the queues of slave brokers (broker id != 0) too
package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/bits"
	"os"
	"runtime"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

var variants = []string{"unsigned-modulo", "byte-order", "code-points", "keeps-slaves"}

var broken = flag.String("broken", os.Getenv("RMQ_HARNESS_BROKEN"), "a deliberately wrong variant: "+strings.Join(variants, ", "))

func contains(list []string, s string) bool {
	for _, item := range list {
		if item == s {
			return true
		}
	}
	return false
}

// ---------------------------------------------------------------------------------------------
// Java strings

// javaString is a java.lang.String: its UTF-16 code units, lone surrogates included.
type javaString []uint16

// UnmarshalJSON decodes a JSON string from its raw text, as JSON.parse does: every \uXXXX escape
// is one UTF-16 code unit, so "\ud83d\ude00" is a pair (one character) and "\ud800" stays a lone
// surrogate (where encoding/json would give U+FFFD).
func (s *javaString) UnmarshalJSON(raw []byte) error {
	units, err := unquoteUTF16(raw)
	*s = units
	return err
}

func unquoteUTF16(raw []byte) ([]uint16, error) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, fmt.Errorf("not a JSON string: %.60s", raw)
	}
	text := raw[1 : len(raw)-1]
	units := make([]uint16, 0, len(text))
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '\\':
			if i+1 >= len(text) {
				return nil, fmt.Errorf("a JSON string ends in a backslash: %.60s", raw)
			}
			switch text[i+1] {
			case '"', '\\', '/':
				units = append(units, uint16(text[i+1]))
			case 'b':
				units = append(units, '\b')
			case 'f':
				units = append(units, '\f')
			case 'n':
				units = append(units, '\n')
			case 'r':
				units = append(units, '\r')
			case 't':
				units = append(units, '\t')
			case 'u':
				if i+6 > len(text) {
					return nil, fmt.Errorf("a short \\u escape in %.60s", raw)
				}
				unit, err := strconv.ParseUint(string(text[i+2:i+6]), 16, 16)
				if err != nil {
					return nil, fmt.Errorf("a bad \\u escape in %.60s", raw)
				}
				units = append(units, uint16(unit))
				i += 6
				continue
			default:
				return nil, fmt.Errorf("an unknown escape \\%c in %.60s", text[i+1], raw)
			}
			i += 2
		case c < utf8.RuneSelf:
			units = append(units, uint16(c))
			i++
		default: // a character written as UTF-8: one code unit, or a pair beyond the BMP
			r, size := utf8.DecodeRune(text[i:])
			if r == utf8.RuneError && size == 1 {
				return nil, fmt.Errorf("invalid UTF-8 in %.60s", raw)
			}
			if hi, lo := utf16.EncodeRune(r); hi != utf8.RuneError {
				units = append(units, uint16(hi), uint16(lo))
			} else {
				units = append(units, uint16(r))
			}
			i += size
		}
	}
	return units, nil
}

func isHighSurrogate(u uint16) bool { return u >= 0xD800 && u <= 0xDBFF }
func isLowSurrogate(u uint16) bool  { return u >= 0xDC00 && u <= 0xDFFF }

// pairAt tells whether units[i] and units[i+1] are a surrogate pair, and its code point.
func pairAt(units []uint16, i int) (rune, bool) {
	if i+1 < len(units) && isHighSurrogate(units[i]) && isLowSurrogate(units[i+1]) {
		return utf16.DecodeRune(rune(units[i]), rune(units[i+1])), true
	}
	return 0, false
}

// javaUTF8 is s.getBytes(StandardCharsets.UTF_8): a surrogate pair is one 4-byte character, a
// lone surrogate (high or low) is the one byte '?'.
func javaUTF8(s javaString) []byte {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		u := s[i]
		switch {
		case u < utf8.RuneSelf:
			out = append(out, byte(u))
		case isHighSurrogate(u) || isLowSurrogate(u):
			if r, ok := pairAt(s, i); ok {
				out = utf8.AppendRune(out, r)
				i++
			} else {
				out = append(out, '?')
			}
		default:
			out = utf8.AppendRune(out, rune(u))
		}
	}
	return out
}

// codePoints is the code-points variant's encoding: UTF-32LE, 4 bytes per code point, a pair
// joined into one, a lone surrogate written as its own value.
func codePoints(s javaString) []byte {
	out := make([]byte, 0, 4*len(s))
	for i := 0; i < len(s); i++ {
		r := rune(s[i])
		if joined, ok := pairAt(s, i); ok {
			r = joined
			i++
		}
		out = binary.LittleEndian.AppendUint32(out, uint32(r))
	}
	return out
}

// key is the string's code units as a Go string, to compare and to use as a map key.
func (s javaString) key() string {
	var b strings.Builder
	for _, u := range s {
		b.WriteByte(byte(u >> 8))
		b.WriteByte(byte(u))
	}
	return b.String()
}

// String is for messages only (a lone surrogate shows as U+FFFD).
func (s javaString) String() string { return string(utf16.Decode(s)) }

// ---------------------------------------------------------------------------------------------
// Guava: Hashing.sipHash24() and LongMath.mod / IntMath.mod

// sipHash24 is SipHash-2-4 of data under the key k0 = 0x0706050403020100, k1 = 0x0f0e0d0c0b0a0908
// (the bytes 00..0f read little-endian), in uint64 arithmetic.
func sipHash24(data []byte) uint64 {
	const k0, k1 = 0x0706050403020100, 0x0f0e0d0c0b0a0908
	v0 := uint64(k0 ^ 0x736f6d6570736575)
	v1 := uint64(k1 ^ 0x646f72616e646f6d)
	v2 := uint64(k0 ^ 0x6c7967656e657261)
	v3 := uint64(k1 ^ 0x7465646279746573)
	round := func() {
		v0 += v1
		v1 = bits.RotateLeft64(v1, 13)
		v1 ^= v0
		v0 = bits.RotateLeft64(v0, 32)
		v2 += v3
		v3 = bits.RotateLeft64(v3, 16)
		v3 ^= v2
		v0 += v3
		v3 = bits.RotateLeft64(v3, 21)
		v3 ^= v0
		v2 += v1
		v1 = bits.RotateLeft64(v1, 17)
		v1 ^= v2
		v2 = bits.RotateLeft64(v2, 32)
	}
	compress := func(m uint64) {
		v3 ^= m
		round()
		round()
		v0 ^= m
	}
	n := len(data)
	for i := 0; i+8 <= n; i += 8 {
		compress(binary.LittleEndian.Uint64(data[i:]))
	}
	last := uint64(n) << 56 // the length's low byte, then the bytes left over, little-endian
	for j, b := range data[n&^7:] {
		last |= uint64(b) << (8 * j)
	}
	compress(last)
	v2 ^= 0xff
	for i := 0; i < 4; i++ {
		round()
	}
	return v0 ^ v1 ^ v2 ^ v3
}

// groupHash is sipHash24().hashBytes(group.getBytes(UTF_8)).asLong(): HashCode's 8 bytes are the
// output little-endian, and asLong reads them back little-endian as a signed long.
func groupHash(group javaString) int64 {
	data := javaUTF8(group)
	if *broken == "code-points" {
		data = codePoints(group)
	}
	hash := sipHash24(data)
	if *broken == "byte-order" {
		hash = bits.ReverseBytes64(hash) // the same 8 bytes read big-endian
	}
	return int64(hash)
}

// longMod is LongMath.mod(x, m) (m > 0): the remainder in [0, m), where Java's % keeps x's sign.
func longMod(x, m int64) int64 {
	if *broken == "unsigned-modulo" {
		return int64(uint64(x) % uint64(m))
	}
	r := x % m
	if r < 0 {
		r += m
	}
	return r
}

// intMod is IntMath.mod(x, m) (m > 0).
func intMod(x int32, m int) int {
	r := int(x) % m
	if r < 0 {
		r += m
	}
	return r
}

// ---------------------------------------------------------------------------------------------
// the route: Endpoints, Broker, MessageQueueImpl

type address struct {
	Host javaString
	Port int64
}

func (a *address) UnmarshalJSON(data []byte) error {
	var pair []json.RawMessage
	if err := json.Unmarshal(data, &pair); err != nil {
		return err
	}
	if len(pair) != 2 {
		return fmt.Errorf("an address is [host, port], not %.60s", data)
	}
	if err := json.Unmarshal(pair[0], &a.Host); err != nil {
		return err
	}
	return json.Unmarshal(pair[1], &a.Port)
}

type endpoints struct {
	Scheme    javaString `json:"scheme"`
	Addresses []address  `json:"addresses"`
}

// equal is Endpoints.equals: the same scheme and the same address list, in order.
func (e *endpoints) equal(o *endpoints) bool {
	if e.Scheme.key() != o.Scheme.key() || len(e.Addresses) != len(o.Addresses) {
		return false
	}
	for i := range e.Addresses {
		if e.Addresses[i].Host.key() != o.Addresses[i].Host.key() || e.Addresses[i].Port != o.Addresses[i].Port {
			return false
		}
	}
	return true
}

type broker struct {
	Name      javaString `json:"name"`
	ID        int64      `json:"id"`
	Endpoints endpoints  `json:"endpoints"`
}

type messageQueue struct {
	QueueID    int64  `json:"queueId"`
	Permission string `json:"permission"`
	Broker     broker `json:"broker"`
}

const masterBrokerID = 0 // Utilities.MASTER_BROKER_ID

func isWritable(permission string) bool { return permission == "WRITE" || permission == "READ_WRITE" }
func isReadable(permission string) bool { return permission == "READ" || permission == "READ_WRITE" }

// routeText is TopicRouteData.toString(), as Java's exception messages embed it.
func routeText(route []messageQueue) string {
	names := make([]string, len(route))
	for i, q := range route {
		names[i] = fmt.Sprintf("%s.TopicTest.%d", q.Broker.Name, q.QueueID)
	}
	return "TopicRouteData{messageQueueImpls=[" + strings.Join(names, ", ") + "]}"
}

// ---------------------------------------------------------------------------------------------
// PublishingLoadBalancer and SubscriptionLoadBalancer

// illegalArgument is what Java's IllegalArgumentException stands for.
type illegalArgument struct{ message string }

func (e *illegalArgument) Error() string { return e.message }

// balancer is either of Java's balancers. kept holds the positions in route of the queues the
// constructor kept (its messageQueues), in route order; index is the AtomicInteger, shared with
// the balancers update makes.
type balancer struct {
	publishing bool
	route      []messageQueue
	kept       []int
	index      *int32
}

// newBalancer is the constructor: the writable (publishing) or readable (subscription) queues of
// master brokers, or IllegalArgumentException when there are none.
func newBalancer(publishing bool, route []messageQueue, index *int32) (*balancer, error) {
	kept := make([]int, 0, len(route))
	for position, q := range route {
		usable := isReadable(q.Permission)
		if publishing {
			usable = isWritable(q.Permission)
		}
		if usable && (q.Broker.ID == masterBrokerID || *broken == "keeps-slaves") {
			kept = append(kept, position)
		}
	}
	if len(kept) == 0 {
		what := "readable"
		if publishing {
			what = "writable"
		}
		return nil, &illegalArgument{fmt.Sprintf("No %s message queue found, topiRouteData=%s", what, routeText(route))}
	}
	return &balancer{publishing, route, kept, index}, nil
}

// update is update(topicRouteData): a balancer of the new route sharing this one's index.
func (b *balancer) update(route []messageQueue) (*balancer, error) {
	return newBalancer(b.publishing, route, b.index)
}

// getAndIncrement is AtomicInteger.getAndIncrement: int32 wraps from MAX_VALUE to MIN_VALUE.
func (b *balancer) getAndIncrement() int32 {
	value := *b.index
	*b.index = value + 1
	return value
}

// takeByGroup is takeMessageQueueByMessageGroup: a position in the current route.
func (b *balancer) takeByGroup(group javaString) (position int, hash int64) {
	hash = groupHash(group)
	return b.kept[longMod(hash, int64(len(b.kept)))], hash
}

// takeQueues is PublishingLoadBalancer.takeMessageQueues(excluded, count): up to count queues,
// one per broker name, round robin from the index, passing over the brokers whose endpoints are
// excluded; when that keeps none, the same scan again ignoring excluded.
func (b *balancer) takeQueues(excluded []endpoints, count int64) []int {
	isExcluded := func(e *endpoints) bool {
		for i := range excluded {
			if excluded[i].equal(e) {
				return true
			}
		}
		return false
	}
	n := len(b.kept)
	next := b.getAndIncrement()
	candidates := make([]int, 0, n)
	names := map[string]bool{}
	for i := 0; i < n; i++ {
		position := b.kept[intMod(next, n)]
		next++ // an int: wraps as Java's next++ does
		q := &b.route[position]
		if name := q.Broker.Name.key(); !isExcluded(&q.Broker.Endpoints) && !names[name] {
			names[name] = true
			candidates = append(candidates, position)
		}
		if int64(len(candidates)) >= count {
			return candidates
		}
	}
	if len(candidates) == 0 { // every broker is excluded: take them anyway
		for i := 0; i < n; i++ {
			position := b.kept[intMod(next, n)]
			next++
			if name := b.route[position].Broker.Name.key(); !names[name] {
				names[name] = true
				candidates = append(candidates, position)
			}
			if int64(len(candidates)) >= count {
				break
			}
		}
	}
	return candidates
}

// takeQueue is SubscriptionLoadBalancer.takeMessageQueue: a position in the current route.
func (b *balancer) takeQueue() int {
	return b.kept[intMod(b.getAndIncrement(), len(b.kept))]
}

// ---------------------------------------------------------------------------------------------
// the requests: group and balance

// groupRoute is the route of a group request: queues READ_WRITE queues, ids 0.., of one master.
func groupRoute(queues int64) []messageQueue {
	master := broker{javaString(utf16.Encode([]rune("broker-a"))), masterBrokerID,
		endpoints{javaString(utf16.Encode([]rune("IPv4"))), []address{{javaString(utf16.Encode([]rune("10.0.0.1"))), 8081}}}}
	var route []messageQueue // none for queues < 1: the constructor refuses it
	for id := int64(0); id < queues; id++ {
		route = append(route, messageQueue{id, "READ_WRITE", master})
	}
	return route
}

type groupRequest struct {
	Strategy string       `json:"strategy"`
	Groups   []javaString `json:"groups"`
	Queues   int64        `json:"queues"`
}

func groupAnswer(line []byte) (map[string]interface{}, error) {
	var r groupRequest
	if err := json.Unmarshal(line, &r); err != nil {
		return nil, err
	}
	if r.Strategy != "GROUP_HASH" {
		return unsupported("group is served for GROUP_HASH, not %s", r.Strategy), nil
	}
	var index int32 // the group routing never reads the index
	b, err := newBalancer(true, groupRoute(r.Queues), &index)
	answers := make([]interface{}, 0, len(r.Groups))
	for _, group := range r.Groups {
		if err != nil {
			answers = append(answers, errorAnswer(err))
			continue
		}
		position, hash := b.takeByGroup(group)
		answers = append(answers, map[string]interface{}{"index": position, "sipHash24": strconv.FormatInt(hash, 10)})
	}
	return map[string]interface{}{"answers": answers}, nil
}

type balanceStep struct {
	Op       string         `json:"op"`
	Excluded []endpoints    `json:"excluded"`
	Count    int64          `json:"count"`
	Group    javaString     `json:"group"`
	Route    []messageQueue `json:"route"`
}

type balanceRequest struct {
	Strategy string         `json:"strategy"`
	Route    []messageQueue `json:"route"`
	Index    int64          `json:"index"`
	Steps    []balanceStep  `json:"steps"`
}

func balanceAnswer(line []byte) (map[string]interface{}, error) {
	var r balanceRequest
	if err := json.Unmarshal(line, &r); err != nil {
		return nil, err
	}
	publishing := r.Strategy == "PUBLISH_ROUND_ROBIN"
	if !publishing && r.Strategy != "SUBSCRIBE_ROUND_ROBIN" {
		return unsupported("balance is served for PUBLISH_ROUND_ROBIN and SUBSCRIBE_ROUND_ROBIN, not %s", r.Strategy), nil
	}
	for _, s := range r.Steps {
		if s.Op != "take" && s.Op != "group" && s.Op != "update" {
			return unsupported("no step %q in this harness", s.Op), nil
		}
	}
	index := int32(r.Index)
	b, err := newBalancer(publishing, r.Route, &index)
	if err != nil { // the constructor threw: that is the whole answer
		return errorAnswer(err), nil
	}
	filtered := b.kept
	outcomes := make([]interface{}, 0, len(r.Steps))
	for _, s := range r.Steps {
		switch {
		case s.Op == "update":
			updated, err := b.update(s.Route)
			if err != nil { // the old balancer and its route stay
				outcomes = append(outcomes, errorAnswer(err))
				continue
			}
			b = updated
			outcomes = append(outcomes, map[string]interface{}{"filtered": b.kept})
		case s.Op == "group" && publishing:
			position, _ := b.takeByGroup(s.Group)
			outcomes = append(outcomes, map[string]interface{}{"queue": position})
		case s.Op == "group":
			outcomes = append(outcomes, errorAnswer(errors.New("SubscriptionLoadBalancer has no takeMessageQueueByMessageGroup")))
		case publishing:
			outcomes = append(outcomes, map[string]interface{}{"queues": b.takeQueues(s.Excluded, s.Count)})
		default:
			outcomes = append(outcomes, map[string]interface{}{"queue": b.takeQueue()})
		}
	}
	return map[string]interface{}{"filtered": filtered, "outcomes": outcomes, "indexAfter": index}, nil
}

// errorAnswer is the protocol's error: illegal-argument for Java's IllegalArgumentException.
func errorAnswer(err error) map[string]interface{} {
	var illegal *illegalArgument
	if errors.As(err, &illegal) {
		return map[string]interface{}{"error": "illegal-argument", "message": illegal.message}
	}
	return map[string]interface{}{"error": "other", "message": err.Error()}
}

func unsupported(format string, args ...interface{}) map[string]interface{} {
	return map[string]interface{}{"unsupported": fmt.Sprintf(format, args...)}
}

// ---------------------------------------------------------------------------------------------
// the protocol

// envelope is what every request has; the rest is read per command (a trace's route, say, is
// not a gRPC route).
type envelope struct {
	Cmd string          `json:"cmd"`
	ID  json.RawMessage `json:"id"`
}

func main() {
	flag.Parse()
	if *broken != "" && !contains(variants, *broken) {
		fmt.Fprintf(os.Stderr, "unknown variant %q; known: %s\n", *broken, strings.Join(variants, ", "))
		os.Exit(2)
	}
	name := "grpc-go-example"
	if *broken != "" {
		name += "-" + *broken
	}
	in := bufio.NewReader(os.Stdin)   // ReadBytes has no line length limit, unlike bufio.Scanner
	out := json.NewEncoder(os.Stdout) // os.Stdout is unbuffered: every answer leaves at once
	for {
		line, readErr := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var r envelope
			if err := json.Unmarshal(line, &r); err != nil {
				fmt.Fprintf(os.Stderr, "cannot read %.200q: %v\n", line, err)
				os.Exit(1)
			}
			var answer map[string]interface{}
			var err error
			switch r.Cmd {
			case "hello":
				answer = map[string]interface{}{
					"protocol":       1,
					"implementation": map[string]string{"name": name, "language": "Go " + runtime.Version(), "version": "1.0.0"},
					"strategies":     []string{"GROUP_HASH", "PUBLISH_ROUND_ROBIN", "SUBSCRIBE_ROUND_ROBIN"},
					"sort":           false,
				}
			case "bye":
				return
			case "group":
				answer, err = groupAnswer(line)
			case "balance":
				answer, err = balanceAnswer(line)
			default:
				answer = unsupported("%s is not served by this harness", r.Cmd)
			}
			if err != nil { // a bug of this harness, or a request it cannot read: crash loudly
				fmt.Fprintf(os.Stderr, "request %s (%s): %v\n", r.ID, r.Cmd, err)
				os.Exit(1)
			}
			if r.Cmd != "hello" {
				answer["id"] = r.ID
			}
			if err := out.Encode(answer); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		if readErr == io.EOF {
			return
		} else if readErr != nil {
			fmt.Fprintln(os.Stderr, readErr)
			os.Exit(1)
		}
	}
}
