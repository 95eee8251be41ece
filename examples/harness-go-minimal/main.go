// main.go
package main

import (
	"bufio"
	"encoding/json"
	"os"
)

type request struct { // encoding/json matches "mqAll" to MqAll, "id" to ID, and so on
	Cmd     string
	ID      int
	MqAll   []json.RawMessage // queues, [topic, brokerName, queueId], handed back untouched
	CidAll  []string
	Callers []*string // null is a caller too: Java's currentCID == null
}

func main() {
	in, out := bufio.NewReader(os.Stdin), json.NewEncoder(os.Stdout) // Encode ends each answer with '\n'
	for line, err := in.ReadBytes('\n'); err == nil; line, err = in.ReadBytes('\n') {
		var r request
		json.Unmarshal(line, &r)
		switch r.Cmd {
		case "hello":
			out.Encode(map[string]any{"protocol": 1, "strategies": []string{"AVG_BY_CIRCLE"}, "sort": false,
				"implementation": map[string]string{"name": "my-client", "language": "Go", "version": "0.1.0"}})
		case "allocate":
			answers := []any{}
			for _, caller := range r.Callers {
				answers = append(answers, allocate(r.MqAll, r.CidAll, caller))
			}
			out.Encode(map[string]any{"id": r.ID, "answers": answers})
		case "bye":
			return
		}
	}
}

// allocate is where your client's own code goes; this one deals the queues out like cards.
func allocate(mqAll []json.RawMessage, cidAll []string, caller *string) any {
	if caller == nil || *caller == "" || len(mqAll) == 0 || len(cidAll) == 0 {
		return map[string]string{"error": "illegal-argument", "message": "an argument is empty"}
	}
	i, queues := 0, []json.RawMessage{}
	for i < len(cidAll) && cidAll[i] != *caller {
		i++
	}
	for q := i; i < len(cidAll) && q < len(mqAll); q += len(cidAll) {
		queues = append(queues, mqAll[q])
	}
	return map[string]any{"queues": queues}
}
