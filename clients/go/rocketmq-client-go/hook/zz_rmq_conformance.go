// Copied by clients/go/build.py into the package consumer of the rocketmq-client-go module
// under test (a copy of the module the Go module proxy served), so that the harness reaches the
// rebalance that package keeps to itself. It adds one function and changes nothing else.

package consumer

import (
	"context"
	"encoding/json"
	"reflect"
	"time"
	"unsafe"

	"github.com/apache/rocketmq-client-go/v2/internal"
	"github.com/apache/rocketmq-client-go/v2/internal/remote"
	"github.com/apache/rocketmq-client-go/v2/primitive"
)

// a name server that knows the one broker of the topic
type rmqConformanceNamesrv struct{ internal.Namesrvs }

func (rmqConformanceNamesrv) FindBrokerAddrByTopic(string) string { return "127.0.0.1:10911" }

// a client whose only broker answers GET_CONSUMER_LIST_BY_GROUP with the group's members, as a
// broker writes them; every other call is not made on the way to the strategy
type rmqConformanceClient struct {
	internal.RMQClient
	cidAll []string
}

func (c rmqConformanceClient) ClientID() string              { return "rmq-conformance@1" }
func (c rmqConformanceClient) GetNameSrv() internal.Namesrvs { return rmqConformanceNamesrv{} }
func (c rmqConformanceClient) InvokeSync(_ context.Context, _ string, _ *remote.RemotingCommand, _ time.Duration) (*remote.RemotingCommand, error) {
	body, err := json.Marshal(map[string][]string{"consumerIdList": c.cidAll})
	if err != nil {
		return nil, err
	}
	return remote.NewRemotingCommand(0, nil, body), nil
}

// rmqConformanceSeen stops doBalance once its strategy is asked
type rmqConformanceSeen struct {
	mqAll  []*primitive.MessageQueue
	cidAll []string
}

// RMQConformanceRebalanceSort runs the consumer's own doBalance of a clustering consumer over a
// topic whose queues are mqAll and whose group, as its broker answers, is cidAll, and returns the
// lists doBalance hands its strategy: its own sort of each.
func RMQConformanceRebalanceSort(mqAll []*primitive.MessageQueue, cidAll []string) (mqs []*primitive.MessageQueue, cids []string) {
	const topic = "TopicTest"
	dc := &defaultConsumer{consumerGroup: "rmq-conformance", model: Clustering, client: rmqConformanceClient{cidAll: cidAll}}
	// up to v2.1.0 the consumer asks a name server of its own (a field), later its client's
	if field := reflect.ValueOf(dc).Elem().FieldByName("namesrv"); field.IsValid() {
		reflect.NewAt(field.Type(), unsafe.Pointer(field.UnsafeAddr())).Elem().Set(reflect.ValueOf(internal.Namesrvs(rmqConformanceNamesrv{})))
	}
	dc.subscriptionDataTable.Store(topic, &internal.SubscriptionData{Topic: topic})
	dc.topicSubscribeInfoTable.Store(topic, mqAll)
	dc.allocate = func(_ string, _ string, mqs []*primitive.MessageQueue, cids []string) []*primitive.MessageQueue {
		panic(rmqConformanceSeen{mqs, cids})
	}
	defer func() {
		if r := recover(); r != nil {
			seen, ok := r.(rmqConformanceSeen)
			if !ok {
				panic(r)
			}
			mqs, cids = seen.mqAll, seen.cidAll
		}
	}()
	dc.doBalance()
	return nil, nil
}
