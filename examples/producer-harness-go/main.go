// A producer-side harness for pytest-rmq-conformance in Go, standard library only:
// RocketMQ 5.3.3's MQFaultStrategy (FAULT_STRATEGY, answered through `trace`) and
// SelectMessageQueueByHash (SELECTOR_HASH, answered through `select`, as in 4.7.1, 4.9.8 and
// 5.3.3), written from the Java client's behaviour. Go's int32 and int64 wrap as Java's int and
// long do, so most of the Java arithmetic carries over as it is. Build it and run the suite with
//
//	cd examples/producer-harness-go && go build -o rmq-producer-harness . && cd -
//	pytest --rmq-strategy="exec:examples/producer-harness-go/rmq-producer-harness"
//
// -broken=VARIANT (or RMQ_HARNESS_BROKEN) selects a deliberately wrong variant, which the suite must reject:
//
//	python-modulo       SELECTOR_HASH takes a floored remainder (sign of the divisor), not Java's truncated one
//	no-min-value-quirk  SELECTOR_HASH at 4.7.1 turns Integer.MIN_VALUE positive, where Math.abs leaves it negative
//	counter-extra-step  every fault-strategy select moves the round-robin counter one step more than Java
//	penalty-off-by-one  a penalised broker is available again at startTimestamp - 1, one millisecond early
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
)

var variants = []string{"python-modulo", "no-min-value-quirk", "counter-extra-step", "penalty-off-by-one"}

var broken = flag.String("broken", os.Getenv("RMQ_HARNESS_BROKEN"), "a deliberately wrong variant: "+strings.Join(variants, ", "))

var (
	traceReleases = []string{"5.3.3"}
	hashReleases  = []string{"4.7.1", "4.9.8", "5.3.3"}
)

func contains(list []string, s string) bool {
	for _, item := range list {
		if item == s {
			return true
		}
	}
	return false
}

// ---------------------------------------------------------------------------------------------
// Java exceptions, strings and java.util.Random

// javaException is what a Java call threw: its simple class name and its getMessage().
type javaException struct{ name, message string }

func (e *javaException) Error() string { return e.name + ": " + e.message }

func throw(name, format string, args ...interface{}) error {
	return &javaException{name, fmt.Sprintf(format, args...)}
}

func divisionByZero() error { return throw("ArithmeticException", "/ by zero") }

// intRem is Java's %: truncated, the result has the sign of the dividend (Go's % agrees).
func intRem(a, n int64) (int64, error) {
	if n == 0 {
		return 0, divisionByZero()
	}
	return a % n, nil
}

// flooredRem is Python's %: the result has the sign of the divisor.
func flooredRem(a, n int64) (int64, error) {
	if n == 0 {
		return 0, divisionByZero()
	}
	return (a%n + n) % n, nil
}

// intAbs is Math.abs(int): Integer.MIN_VALUE stays negative (-x wraps to itself).
func intAbs(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

// checkIndex is List.get's index check on a list of size elements.
func checkIndex(index, size int64) (int64, error) {
	if index < 0 || index >= size {
		return 0, throw("IndexOutOfBoundsException", "Index %d out of bounds for length %d", index, size)
	}
	return index, nil
}

// stringHash is String.hashCode: 31 * h + c over the UTF-16 code units.
func stringHash(s string) int32 {
	var h int32
	for _, unit := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(unit)
	}
	return h
}

// compareJavaStrings is String.compareTo: UTF-16 code units, not Go's bytes (which order as code points).
func compareJavaStrings(a, b string) int {
	x, y := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(x) && i < len(y); i++ {
		if x[i] != y[i] {
			return int(x[i]) - int(y[i])
		}
	}
	return len(x) - len(y)
}

const (
	multiplier = 0x5DEECE66D
	mask48     = 1<<48 - 1
)

// javaRandom is java.util.Random, the 48-bit linear congruential generator.
type javaRandom struct{ seed int64 }

func newJavaRandom(seed int64) *javaRandom { return &javaRandom{(seed ^ multiplier) & mask48} }

func (r *javaRandom) next(bits uint) int32 {
	r.seed = (r.seed*multiplier + 0xB) & mask48
	return int32(r.seed >> (48 - bits))
}

func (r *javaRandom) nextInt() int32 { return r.next(32) }

func (r *javaRandom) nextIntBelow(bound int32) int32 {
	value := r.next(31)
	m := bound - 1
	if bound&m == 0 {
		return int32(int64(bound) * int64(value) >> 31)
	}
	for u := value; ; u = r.next(31) {
		value = u % bound
		if u-value+m >= 0 { // int arithmetic: a draw past the last whole multiple of bound wraps negative
			return value
		}
	}
}

// ---------------------------------------------------------------------------------------------
// SELECTOR_HASH

type selectorArg struct {
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
}

// argumentHash is arg.hashCode() of the argument the suite describes.
func argumentHash(arg *selectorArg) (int32, error) {
	if arg == nil || arg.Type == "null" {
		return 0, throw("NullPointerException", "the argument is null")
	}
	switch arg.Type {
	case "string":
		var s string
		err := json.Unmarshal(arg.Value, &s)
		return stringHash(s), err
	case "integer", "hashCode": // Integer.hashCode, or an object whose hashCode() returns the value
		var v int32
		err := json.Unmarshal(arg.Value, &v)
		return v, err
	case "long": // Long.hashCode: (int) (v ^ (v >>> 32))
		var v int64
		err := json.Unmarshal(arg.Value, &v)
		return int32(v ^ int64(uint64(v)>>32)), err
	}
	return 0, fmt.Errorf("unknown argument type %q", arg.Type)
}

// hashPosition is SelectMessageQueueByHash.select with n queues: the position of the queue it returns.
func hashPosition(release string, hash int32, n int64) (int64, error) {
	rem := intRem
	if *broken == "python-modulo" {
		rem = flooredRem
	}
	if release == "4.7.1" {
		// value = Math.abs(hashCode) when negative, then value % size
		value := int64(hash)
		if value < 0 {
			if *broken == "no-min-value-quirk" {
				value = -value
			} else {
				value = int64(intAbs(hash))
			}
		}
		position, err := rem(value, n)
		if err != nil {
			return 0, err
		}
		return checkIndex(position, n)
	}
	// 4.9.8 and later: value = hashCode % size, then Math.abs when negative (never MIN_VALUE here)
	position, err := rem(int64(hash), n)
	if err != nil {
		return 0, err
	}
	if position < 0 {
		position = -position
	}
	return checkIndex(position, n)
}

func selectAnswer(r *request) (map[string]interface{}, error) {
	if r.Strategy != "SELECTOR_HASH" {
		return unsupported("%s is not implemented in this harness", r.Strategy), nil
	}
	if !contains(hashReleases, r.Release) {
		return unsupported("SELECTOR_HASH is implemented as RocketMQ %s, not %s", strings.Join(hashReleases, ", "), r.Release), nil
	}
	answers := []interface{}{}
	for _, n := range r.QueueCounts {
		hash, err := argumentHash(r.Arg)
		var position int64
		if err == nil {
			position, err = hashPosition(r.Release, hash, n)
		}
		if err != nil {
			answer, bug := errorAnswer(err)
			if bug != nil {
				return nil, bug
			}
			answers = append(answers, answer)
			continue
		}
		answers = append(answers, map[string]int64{"index": position})
	}
	return map[string]interface{}{"answers": answers}, nil
}

// errorAnswer is the protocol's error for a Java exception; any other error is a bug of this harness.
func errorAnswer(err error) (map[string]interface{}, error) {
	e, ok := err.(*javaException)
	if !ok {
		return nil, err
	}
	kind := "other"
	if e.name == "IllegalArgumentException" {
		kind = "illegal-argument"
	}
	return map[string]interface{}{"error": kind, "message": e.Error()}, nil
}

func unsupported(format string, args ...interface{}) map[string]interface{} {
	return map[string]interface{}{"unsupported": fmt.Sprintf(format, args...)}
}

// ---------------------------------------------------------------------------------------------
// FAULT_STRATEGY at 5.3.3

// queue is a MessageQueue of the publish list, [brokerName, queueId] on the wire.
type queue struct {
	Broker string
	ID     int32
}

func (q queue) MarshalJSON() ([]byte, error) { return json.Marshal([]interface{}{q.Broker, q.ID}) }

type queueData struct {
	Broker         string
	WriteQueueNums int32
	Perm           int32
}

func (d *queueData) UnmarshalJSON(data []byte) error {
	return json.Unmarshal(data, &[]interface{}{&d.Broker, &d.WriteQueueNums, &d.Perm})
}

type brokerData struct {
	Broker string
	IDs    []int64
}

func (d *brokerData) UnmarshalJSON(data []byte) error {
	return json.Unmarshal(data, &[]interface{}{&d.Broker, &d.IDs})
}

type route struct {
	QueueDatas     []queueData  `json:"queueDatas"`
	BrokerDatas    []brokerData `json:"brokerDatas"`
	OrderTopicConf *string      `json:"orderTopicConf"`
}

// sendIndex is a ThreadLocalIndex as the one sending thread sees it: the stored int (nil until first used).
type sendIndex struct {
	stored *int32
	random *javaRandom
}

func newSendIndex(stored *int32, seed int64) *sendIndex {
	return &sendIndex{stored, newJavaRandom(seed)}
}

func (c *sendIndex) set(value int32) { c.stored = &value }

func (c *sendIndex) incrementAndGet() int32 {
	var start int32
	if c.stored == nil {
		start = c.random.nextInt()
	} else {
		start = *c.stored
	}
	c.set(start + 1)
	return *c.stored & math.MaxInt32
}

func (c *sendIndex) reset() { c.set(c.random.nextIntBelow(math.MaxInt32)) }

// publishInfo is a TopicPublishInfo: the publish list and its counter; a select answers a position in the list.
type publishInfo struct {
	queues  []queue
	counter *sendIndex
}

// nextPosition is selectOneMessageQueue(): one counter step (then / by zero for an empty list).
func (p *publishInfo) nextPosition() (int, error) {
	position, err := intRem(int64(p.counter.incrementAndGet()), int64(len(p.queues)))
	return int(position), err
}

type queueFilter func(queue) bool

// firstAccepted is selectOneMessageQueue(QueueFilter...): one step per probe, every filter
// asked, -1 when none passes.
func (p *publishInfo) firstAccepted(filters ...queueFilter) (int, error) {
	for range p.queues {
		position, err := p.nextPosition()
		if err != nil {
			return 0, err
		}
		accepted := true
		for _, accepts := range filters {
			accepted = accepts(p.queues[position]) && accepted
		}
		if accepted {
			return position, nil
		}
	}
	return -1, nil
}

// avoiding is selectOneMessageQueue(lastBrokerName): a step per probe for another broker, then a plain step.
func (p *publishInfo) avoiding(lastBroker *string) (int, error) {
	if lastBroker != nil {
		for range p.queues {
			position, err := p.nextPosition()
			if err != nil || p.queues[position].Broker != *lastBroker {
				return position, err
			}
		}
	}
	return p.nextPosition()
}

// javaSplit is String.split for a one-character separator: trailing empty strings are dropped.
func javaSplit(text, separator string) []string {
	parts := strings.Split(text, separator)
	for len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if len(parts) == 1 && parts[0] == "" && text != "" {
		return nil
	}
	return parts
}

var javaInt = regexp.MustCompile(`^[+-]?[0-9]+$`)

// parseJavaInt is Integer.parseInt of item[1] of a split entry.
func parseJavaInt(item []string) (int32, error) {
	if len(item) < 2 {
		return 0, throw("ArrayIndexOutOfBoundsException", "Index 1 out of bounds for length %d", len(item))
	}
	value, err := strconv.ParseInt(item[1], 10, 32)
	if !javaInt.MatchString(item[1]) || err != nil {
		return 0, throw("NumberFormatException", "For input string: %q", item[1])
	}
	return int32(value), nil
}

// publishList is MQClientInstance.topicRouteData2TopicPublishInfo's list for a route.
func publishList(r route) ([]queue, error) {
	queues := []queue{}
	if r.OrderTopicConf != nil && *r.OrderTopicConf != "" {
		for _, entry := range javaSplit(*r.OrderTopicConf, ";") {
			item := javaSplit(entry, ":")
			count, err := parseJavaInt(item)
			if err != nil {
				return nil, err
			}
			for i := int32(0); i < count; i++ {
				queues = append(queues, queue{item[0], i})
			}
		}
		return queues, nil
	}
	datas := append([]queueData(nil), r.QueueDatas...)
	sort.SliceStable(datas, func(i, j int) bool { return compareJavaStrings(datas[i].Broker, datas[j].Broker) < 0 })
	for _, data := range datas {
		if data.Perm&2 == 0 { // PermName.PERM_WRITE
			continue
		}
		if !hasMaster(r.BrokerDatas, data.Broker) {
			continue
		}
		for i := int32(0); i < data.WriteQueueNums; i++ {
			queues = append(queues, queue{data.Broker, i})
		}
	}
	return queues, nil
}

// hasMaster tells whether the first broker data of that name has a broker id 0.
func hasMaster(datas []brokerData, broker string) bool {
	for _, data := range datas {
		if data.Broker == broker {
			for _, id := range data.IDs {
				if id == 0 {
					return true
				}
			}
			return false
		}
	}
	return false
}

// faultItem is a FaultItem, as the protocol shows it.
type faultItem struct {
	Latency        int64 `json:"latency"`
	StartTimestamp int64 `json:"startTimestamp"`
	Reachable      bool  `json:"reachable"`
	CheckStamp     int64 `json:"checkStamp"`
}

// faultTable is a ConcurrentHashMap<String, FaultItem> as far as its iteration order goes: bins
// walked in index order, insertion order within a bin, bin = spread(String.hashCode) & (bins - 1).
type faultTable struct {
	bins  [][]string
	items map[string]*faultItem
}

func newFaultTable() *faultTable {
	return &faultTable{make([][]string, 32), map[string]*faultItem{}} // new ConcurrentHashMap<>(16) has 32 bins
}

func spread(name string) int32 {
	h := stringHash(name)
	return (h ^ int32(uint32(h)>>16)) & math.MaxInt32
}

func (t *faultTable) bin(name string) int { return int(spread(name)) & (len(t.bins) - 1) }

func (t *faultTable) put(name string, item *faultItem) {
	if _, ok := t.items[name]; !ok {
		b := t.bin(name)
		t.bins[b] = append(t.bins[b], name)
	}
	t.items[name] = item
	if len(t.items) >= len(t.bins)*3/4 {
		t.grow()
	}
}

func (t *faultTable) remove(name string) {
	if _, ok := t.items[name]; !ok {
		return
	}
	delete(t.items, name)
	b := t.bin(name)
	for i, key := range t.bins[b] {
		if key == name {
			t.bins[b] = append(t.bins[b][:i:i], t.bins[b][i+1:]...)
			break
		}
	}
}

// grow is Java's transfer: of each bin, the longest tail bound for one half keeps its order, and
// the keys before it are pushed to the front of their half one by one (so they come reversed).
func (t *faultTable) grow() {
	n := len(t.bins)
	bins := make([][]string, 2*n)
	for i, keys := range t.bins {
		if len(keys) == 0 {
			continue
		}
		high := make([]bool, len(keys))
		for k, key := range keys {
			high[k] = int(spread(key))&n != 0
		}
		last := len(keys) - 1
		tail := last
		for tail > 0 && high[tail-1] == high[last] {
			tail--
		}
		side := func(up bool) int {
			if up {
				return i + n
			}
			return i
		}
		bins[side(high[last])] = append(bins[side(high[last])], keys[tail:]...)
		for k := 0; k < tail; k++ {
			s := side(high[k])
			bins[s] = append([]string{keys[k]}, bins[s]...)
		}
	}
	t.bins = bins
}

func (t *faultTable) names() []string {
	names := []string{}
	for _, keys := range t.bins {
		names = append(names, keys...)
	}
	return names
}

// MarshalJSON writes the table with its keys in Java's iteration order.
func (t *faultTable) MarshalJSON() ([]byte, error) {
	var out bytes.Buffer
	out.WriteByte('{')
	for i, name := range t.names() {
		if i > 0 {
			out.WriteByte(',')
		}
		key, _ := json.Marshal(name)
		item, _ := json.Marshal(t.items[name])
		out.Write(key)
		out.WriteByte(':')
		out.Write(item)
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}

var (
	defaultLatencyMax           = []int64{50, 100, 550, 1800, 3000, 5000, 15000}
	defaultNotAvailableDuration = []int64{0, 0, 2000, 5000, 6000, 10000, 30000}
)

const (
	isolationLatency = 10000
	detectInterval   = 2000
)

// faultStrategy is MQFaultStrategy with its LatencyFaultToleranceImpl, as of 5.3.3, on a clock of its own.
type faultStrategy struct {
	latencyFaultEnable   bool
	latencyMax           []int64
	notAvailableDuration []int64
	table                *faultTable
	now                  int64
}

func (s *faultStrategy) isAvailable(broker string) bool {
	item := s.table.items[broker]
	if item == nil {
		return true
	}
	until := item.StartTimestamp
	if *broken == "penalty-off-by-one" {
		until--
	}
	return s.now >= until
}

func (s *faultStrategy) isReachable(broker string) bool {
	item := s.table.items[broker]
	return item == nil || item.Reachable
}

// selectQueue is selectOneMessageQueue(tpInfo, lastBrokerName, resetIndex): a position in the list.
func (s *faultStrategy) selectQueue(info *publishInfo, lastBroker *string, resetIndex bool) (int, error) {
	if *broken == "counter-extra-step" {
		info.counter.incrementAndGet()
	}
	otherBroker := func(q queue) bool { return lastBroker == nil || q.Broker != *lastBroker }
	var position int
	var err error
	if s.latencyFaultEnable {
		if resetIndex {
			info.counter.reset()
		}
		position, err = info.firstAccepted(func(q queue) bool { return s.isAvailable(q.Broker) }, otherBroker)
		if err == nil && position < 0 {
			position, err = info.firstAccepted(func(q queue) bool { return s.isReachable(q.Broker) }, otherBroker)
		}
	} else {
		position, err = info.firstAccepted(otherBroker)
	}
	if err == nil && position < 0 {
		return info.nextPosition()
	}
	return position, err
}

// notAvailableFor is the penalty of the last latencyMax step the latency reaches.
func (s *faultStrategy) notAvailableFor(latency int64) (int64, error) {
	for i := len(s.latencyMax) - 1; i >= 0; i-- {
		if latency >= s.latencyMax[i] {
			if i >= len(s.notAvailableDuration) {
				return 0, throw("ArrayIndexOutOfBoundsException", "Index %d out of bounds for length %d", i, len(s.notAvailableDuration))
			}
			return s.notAvailableDuration[i], nil
		}
	}
	return 0, nil
}

// update is updateFaultItem(brokerName, currentLatency, isolation, reachable).
func (s *faultStrategy) update(broker *string, latency int64, isolation, reachable bool) error {
	if !s.latencyFaultEnable {
		return nil
	}
	priced := latency
	if isolation {
		priced = isolationLatency
	}
	duration, err := s.notAvailableFor(priced)
	if err != nil {
		return err
	}
	if broker == nil {
		return throw("NullPointerException", "ConcurrentHashMap takes no null key")
	}
	item := s.table.items[*broker]
	if item == nil {
		item = &faultItem{}
		s.table.put(*broker, item)
	}
	item.Latency = latency
	if until := s.now + duration; duration > 0 && until > item.StartTimestamp { // a penalty only grows
		item.StartTimestamp = until
	}
	item.Reachable = reachable
	return nil
}

// detect is detectByOneRound(), the resolver reading resolve and the detector reachableAddrs.
func (s *faultStrategy) detect(resolve map[string]*string, reachableAddrs []string) {
	for _, name := range s.table.names() {
		item := s.table.items[name]
		if s.now-item.CheckStamp < 0 {
			continue
		}
		item.CheckStamp = s.now + detectInterval
		address := resolve[name]
		if address == nil {
			s.table.remove(name)
		} else if contains(reachableAddrs, *address) {
			item.Reachable = true
		}
	}
}

type faultParams struct {
	SendLatencyFaultEnable bool     `json:"sendLatencyFaultEnable"`
	LatencyMax             *[]int64 `json:"latencyMax"`
	NotAvailableDuration   *[]int64 `json:"notAvailableDuration"`
}

type initialState struct {
	ClockMs       int64  `json:"clockMs"`
	SendIndex     *int32 `json:"sendIndex"`
	SendIndexSeed int64  `json:"sendIndexSeed"`
}

type step struct {
	Op             string             `json:"op"`
	LastBroker     *string            `json:"lastBroker"`
	ResetIndex     bool               `json:"resetIndex"`
	Broker         *string            `json:"broker"`
	Latency        int64              `json:"latency"`
	Isolation      bool               `json:"isolation"`
	Reachable      bool               `json:"reachable"`
	Ms             int64              `json:"ms"`
	Value          int32              `json:"value"`
	Enable         bool               `json:"enable"`
	Route          route              `json:"route"`
	SendIndex      *int32             `json:"sendIndex"`
	SendIndexSeed  int64              `json:"sendIndexSeed"`
	Resolve        map[string]*string `json:"resolve"`
	ReachableAddrs []string           `json:"reachableAddrs"`
}

type selectOutcome struct {
	Queue            *queue `json:"queue"`
	ListIndex        *int   `json:"listIndex"`
	StoredIndexAfter *int32 `json:"storedIndexAfter"`
}

func outcomeOf(info *publishInfo, position int, err error) (interface{}, error) {
	if err != nil {
		return nil, err
	}
	stored := info.counter.stored
	if stored != nil {
		value := *stored
		stored = &value
	}
	return selectOutcome{&info.queues[position], &position, stored}, nil
}

// play takes one step of a trace; what can be observed after it.
func play(s *faultStrategy, info **publishInfo, st *step) (interface{}, error) {
	switch st.Op {
	case "advance":
		s.now += st.Ms
		return nil, nil
	case "set_index":
		(*info).counter.set(st.Value)
		return nil, nil
	case "set_latency":
		s.latencyFaultEnable = st.Enable
		return nil, nil
	case "route":
		queues, err := publishList(st.Route)
		if err != nil {
			return nil, err
		}
		*info = &publishInfo{queues, newSendIndex(st.SendIndex, st.SendIndexSeed)}
		return map[string]interface{}{"publishList": queues}, nil
	case "update":
		if err := s.update(st.Broker, st.Latency, st.Isolation, st.Reachable); err != nil {
			return nil, err
		}
		var item *faultItem
		if st.Broker != nil && s.table.items[*st.Broker] != nil {
			copied := *s.table.items[*st.Broker] // later steps change the table's own item
			item = &copied
		}
		return map[string]interface{}{"item": item}, nil
	case "detect":
		s.detect(st.Resolve, st.ReachableAddrs)
		table, err := s.table.MarshalJSON() // as it is now, not as later steps leave it
		return map[string]interface{}{"tableAfter": json.RawMessage(table)}, err
	case "select":
		position, err := s.selectQueue(*info, st.LastBroker, st.ResetIndex)
		return outcomeOf(*info, position, err)
	case "tp_select":
		position, err := (*info).avoiding(st.LastBroker)
		return outcomeOf(*info, position, err)
	}
	return nil, fmt.Errorf("unknown step %q", st.Op)
}

func traceAnswer(r *request) (map[string]interface{}, error) {
	if r.Strategy != "FAULT_STRATEGY" {
		return unsupported("%s is not implemented in this harness", r.Strategy), nil
	}
	if !contains(traceReleases, r.Release) {
		return unsupported("FAULT_STRATEGY is implemented as RocketMQ %s only, not %s", strings.Join(traceReleases, ", "), r.Release), nil
	}
	s := &faultStrategy{
		latencyFaultEnable:   r.Params.SendLatencyFaultEnable,
		latencyMax:           defaultLatencyMax,
		notAvailableDuration: defaultNotAvailableDuration,
		table:                newFaultTable(),
		now:                  r.Initial.ClockMs,
	}
	if r.Params.LatencyMax != nil {
		s.latencyMax = *r.Params.LatencyMax
	}
	if r.Params.NotAvailableDuration != nil {
		s.notAvailableDuration = *r.Params.NotAvailableDuration
	}
	outcomes := make([]interface{}, len(r.Steps))
	built, err := publishList(r.Route)
	if err != nil { // no publish list to play the steps on: said at the first step
		answer, bug := errorAnswer(err)
		if len(outcomes) > 0 {
			outcomes[0] = answer
		}
		return map[string]interface{}{"publishList": []queue{}, "outcomes": outcomes}, bug
	}
	info := &publishInfo{built, newSendIndex(r.Initial.SendIndex, r.Initial.SendIndexSeed)}
	for i := range r.Steps {
		outcome, err := play(s, &info, &r.Steps[i])
		if err != nil {
			if outcome, err = errorAnswer(err); err != nil {
				return nil, err
			}
		}
		outcomes[i] = outcome
	}
	return map[string]interface{}{"publishList": built, "outcomes": outcomes}, nil
}

// ---------------------------------------------------------------------------------------------
// the protocol

type request struct {
	Cmd         string       `json:"cmd"`
	ID          int64        `json:"id"`
	Strategy    string       `json:"strategy"`
	Release     string       `json:"release"`
	Params      faultParams  `json:"params"`
	Route       route        `json:"route"`
	Initial     initialState `json:"initial"`
	Steps       []step       `json:"steps"`
	Arg         *selectorArg `json:"arg"`
	QueueCounts []int64      `json:"queueCounts"`
}

func main() {
	flag.Parse()
	if *broken != "" && !contains(variants, *broken) {
		fmt.Fprintf(os.Stderr, "unknown variant %q; known: %s\n", *broken, strings.Join(variants, ", "))
		os.Exit(2)
	}
	name := "producer-go-example"
	if *broken != "" {
		name += "-" + *broken
	}
	in := bufio.NewReader(os.Stdin)   // ReadBytes has no line length limit, unlike bufio.Scanner
	out := json.NewEncoder(os.Stdout) // os.Stdout is unbuffered: every answer leaves at once
	for {
		line, readErr := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var r request
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
					"strategies":     []string{"FAULT_STRATEGY", "SELECTOR_HASH"},
					"sort":           false,
				}
			case "bye":
				return
			case "trace":
				answer, err = traceAnswer(&r)
			case "select":
				answer, err = selectAnswer(&r)
			default:
				answer = unsupported("%s is not served by this harness", r.Cmd)
			}
			if err != nil { // a bug of this harness: crash loudly, the suite says so and restarts it
				fmt.Fprintf(os.Stderr, "request %d: %v\n", r.ID, err)
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
