// Copied by clients/go/build.py into the root package (package golang) of the rocketmq-clients Go
// module under test (github.com/apache/rocketmq-clients/golang/v5, a copy of the module the Go
// module proxy served), so that the harness reaches the producer's and the simple consumer's
// route handling, which that package keeps to itself. It adds types of its own and changes none of
// the module's code; the client's logger (sugarBaseLogger, which writes a file under
// ~/logs/rocketmq) is set to zap's no-op logger when the first client is made. It is written in
// the Go of v5.1.2's go.mod (go 1.17: interface{}, not any), the oldest version the proxy serves.

package golang

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/apache/rocketmq-clients/golang/v5/credentials"
	"github.com/apache/rocketmq-clients/golang/v5/pkg/utils"
	v2 "github.com/apache/rocketmq-clients/golang/v5/protocol/v2"
	"go.uber.org/zap"
)

const rmqConformanceTopic = "TopicTest"

// the proxy the client asks: QueryRoute answers the route the harness gives, and the telemetry
// stream the client opens to each broker before it keeps a route takes its settings; every other
// call is not made on the way to the balancers (the nil interface would panic, recovered by the
// harness as an error)
type rmqConformanceProxy struct {
	ClientManager
	route []*v2.MessageQueue
	done  <-chan struct{}
}

func (p *rmqConformanceProxy) QueryRoute(context.Context, *v2.Endpoints, *v2.QueryRouteRequest, time.Duration) (*v2.QueryRouteResponse, error) {
	return &v2.QueryRouteResponse{Status: &v2.Status{Code: v2.Code_OK}, MessageQueues: p.route}, nil
}

func (p *rmqConformanceProxy) Telemetry(context.Context, *v2.Endpoints, time.Duration) (v2.MessagingService_TelemetryClient, error) {
	return rmqConformanceStream{done: p.done}, nil
}

type rmqConformanceStream struct {
	v2.MessagingService_TelemetryClient
	done <-chan struct{}
}

func (rmqConformanceStream) Send(*v2.TelemetryCommand) error { return nil }
func (rmqConformanceStream) CloseSend() error                { return nil }

// the stream never answers: the session's reader waits here until the harness closes the client
func (s rmqConformanceStream) Recv() (*v2.TelemetryCommand, error) {
	<-s.done
	return nil, errors.New("rmq-conformance: the harness closed this client")
}

var rmqConformanceQuiet sync.Once

// RMQConformanceClient is one producer (PUBLISH_ROUND_ROBIN, GROUP_HASH) or simple consumer
// (SUBSCRIBE_ROUND_ROBIN) made by the module's own constructor, whose proxy answers the route the
// harness gives; its balancer is the one the client keeps for TopicTest.
type RMQConformanceClient struct {
	cli   *defaultClient
	p     *defaultProducer
	sc    *defaultSimpleConsumer
	proxy *rmqConformanceProxy
}

// RMQConformanceNew makes the client and has it build its balancer from route, the proxy's
// QueryRouteResponse, the way a send (producer.go, getPublishingTopicRouteResult) or a receive
// (simple_consumer.go, getSubscriptionTopicRouteResult) builds it the first time.
func RMQConformanceNew(publishing bool, route []*v2.MessageQueue) (*RMQConformanceClient, error) {
	rmqConformanceQuiet.Do(func() { sugarBaseLogger = zap.NewNop().Sugar() }) // its logs would go to ~/logs/rocketmq
	// empty credentials, as the module's examples give: up to v5.1.3 Sign reads them unchecked
	config := &Config{Endpoint: "127.0.0.1:8081", ConsumerGroup: "rmq-conformance", Credentials: &credentials.SessionCredentials{}}
	c := &RMQConformanceClient{}
	if publishing {
		made, err := NewProducer(config)
		if err != nil {
			return nil, err
		}
		c.p = made.(*defaultProducer)
		c.cli = c.p.cli
	} else {
		made, err := NewSimpleConsumer(config)
		if err != nil {
			return nil, err
		}
		c.sc = made.(*defaultSimpleConsumer)
		c.cli = c.sc.cli
	}
	c.proxy = &rmqConformanceProxy{route: route, done: c.cli.done}
	c.cli.clientManager = c.proxy
	_, err := c.balancer()
	return c, err
}

// the balancer the client keeps for the topic (built from the route the first time)
func (c *RMQConformanceClient) balancer() (interface{}, error) {
	if c.p != nil {
		return c.p.getPublishingTopicRouteResult(context.Background(), rmqConformanceTopic)
	}
	return c.sc.getSubscriptionTopicRouteResult(context.Background(), rmqConformanceTopic)
}

// Close ends what the client started (the telemetry sessions' readers).
func (c *RMQConformanceClient) Close() {
	close(c.cli.done)
}

// Kept is the list the client's balancer holds.
func (c *RMQConformanceClient) Kept() ([]*v2.MessageQueue, error) {
	lb, err := c.balancer()
	if err != nil {
		return nil, err
	}
	switch b := lb.(type) {
	case *publishingLoadBalancer:
		return b.messageQueues, nil
	case *subscriptionLoadBalancer:
		return b.messageQueues, nil
	}
	return nil, fmt.Errorf("the client keeps a %T", lb)
}

// the balancer's index field: an int32 moved by sync/atomic up to v5.1.2, a go.uber.org/atomic
// Int32 from v5.1.3 (read and written by its own Load and Store)
func (c *RMQConformanceClient) index() (load func() int32, store func(int32), err error) {
	lb, err := c.balancer()
	if err != nil {
		return nil, nil, err
	}
	field := reflect.ValueOf(lb).Elem().FieldByName("index")
	if !field.IsValid() {
		return nil, nil, fmt.Errorf("%T has no index field", lb)
	}
	at := unsafe.Pointer(field.UnsafeAddr())
	if field.Kind() == reflect.Int32 {
		raw := (*int32)(at)
		return func() int32 { return atomic.LoadInt32(raw) }, func(v int32) { atomic.StoreInt32(raw, v) }, nil
	}
	typed, ok := reflect.NewAt(field.Type(), at).Interface().(interface {
		Load() int32
		Store(int32)
	})
	if !ok {
		return nil, nil, fmt.Errorf("%T's index is a %s", lb, field.Type())
	}
	return typed.Load, typed.Store, nil
}

// Index is the balancer's index now.
func (c *RMQConformanceClient) Index() (int32, error) {
	load, _, err := c.index()
	if err != nil {
		return 0, err
	}
	return load(), nil
}

// SetIndex pins the index the balancer starts at (the client's own start is the field's zero).
func (c *RMQConformanceClient) SetIndex(value int32) error {
	_, store, err := c.index()
	if err != nil {
		return err
	}
	store(value)
	return nil
}

// Take is the producer's pick of the queues a send tries (send0: takeMessageQueues, which asks
// the balancer for as many as the retry policy's attempts), with excluded isolated as a failed
// send isolates an endpoint (send1: every address of it, as utils.ParseAddress writes it).
func (c *RMQConformanceClient) Take(excluded []*v2.Endpoints, count int32) ([]*v2.MessageQueue, error) {
	lb, err := c.balancer()
	if err != nil {
		return nil, err
	}
	c.p.isolated.Range(func(key, _ interface{}) bool {
		c.p.isolated.Delete(key)
		return true
	})
	for _, endpoints := range excluded {
		for _, address := range endpoints.GetAddresses() {
			c.p.isolated.Store(utils.ParseAddress(address), true)
		}
	}
	c.p.pSetting.retryPolicy.MaxAttempts = count
	return c.p.takeMessageQueues(lb.(PublishingLoadBalancer))
}

// Group is the producer's pick for a FIFO message of the group (send0).
func (c *RMQConformanceClient) Group(group string) ([]*v2.MessageQueue, error) {
	lb, err := c.balancer()
	if err != nil {
		return nil, err
	}
	return lb.(PublishingLoadBalancer).TakeMessageQueueByMessageGroup(&group)
}

// TakeOne is the simple consumer's pick of the queue a receive polls (Receive).
func (c *RMQConformanceClient) TakeOne() (*v2.MessageQueue, error) {
	lb, err := c.balancer()
	if err != nil {
		return nil, err
	}
	return lb.(SubscriptionLoadBalancer).TakeMessageQueue()
}

// Refresh is one pass of the client's scheduled route refresh (the closure startUp hands its
// ticker every 30 s, client.go) for the topic, the proxy answering route: the refresh keeps the
// old balancer when the query fails, replaces it with CopyAndUpdate when the route changed, and
// leaves it when it did not. The closure cannot be called apart from startUp: these are its lines,
// with its log lines dropped and the query's error returned.
func (c *RMQConformanceClient) Refresh(route []*v2.MessageQueue) error {
	cli := c.cli
	c.proxy.route = route
	k, topic := interface{}(rmqConformanceTopic), rmqConformanceTopic
	v, _ := cli.router.Load(k)
	newRoute, err := cli.queryRoute(context.TODO(), topic, cli.opts.timeout)
	if newRoute == nil && v != nil {
		return fmt.Errorf("the refresh keeps the old route (newRoute is nil, but oldRoute is not): %w", err)
	}
	var oldRoute []*v2.MessageQueue
	if v != nil {
		oldRoute = v.([]*v2.MessageQueue)
	}
	if !routeEqual(oldRoute, newRoute) {
		cli.router.Store(k, newRoute)
		switch impl := cli.clientImpl.(type) {
		case *defaultProducer:
			existing, ok := impl.publishingRouteDataResultCache.Load(topic)
			if !ok {
				plb, err := NewPublishingLoadBalancer(newRoute)
				if err == nil {
					impl.publishingRouteDataResultCache.Store(topic, plb)
				}
			} else {
				impl.publishingRouteDataResultCache.Store(topic, existing.(PublishingLoadBalancer).CopyAndUpdate(newRoute))
			}
		case *defaultSimpleConsumer:
			existing, ok := impl.subTopicRouteDataResultCache.Load(topic)
			if !ok {
				slb, err := NewSubscriptionLoadBalancer(newRoute)
				if err == nil {
					impl.subTopicRouteDataResultCache.Store(topic, slb)
				}
			} else {
				impl.subTopicRouteDataResultCache.Store(topic, existing.(SubscriptionLoadBalancer).CopyAndUpdate(newRoute))
			}
		}
	}
	return err
}
