package server

import (
	"context"
	"encoding/json"

	"github.com/loglab/loglab/web"
)

// subscriberQueue bounds how many updates may wait for one slow browser.
// A subscriber that falls this far behind is disconnected (its page then
// reloads the current state) rather than letting the queue grow without end.
const subscriberQueue = 64

// subscriber is one connected live page.
type subscriber struct {
	msgs      chan []byte
	closeSlow func()
}

// subscribe registers a page; the caller must unsubscribe when it leaves.
func (s *liveSession) subscribe(closeSlow func()) *subscriber {
	sub := &subscriber{msgs: make(chan []byte, subscriberQueue), closeSlow: closeSlow}
	s.mu.Lock()
	s.subscribers = append(s.subscribers, sub)
	// Queued before any later change: a page connecting mid-lesson
	// catches up, then follows the room.
	s.catchUp(sub)
	s.mu.Unlock()
	return sub
}

func (s *liveSession) unsubscribe(sub *subscriber) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, x := range s.subscribers {
		if x == sub {
			s.subscribers = append(s.subscribers[:i], s.subscribers[i+1:]...)
			return
		}
	}
}

// publish hands msg to every subscriber without ever blocking the engine.
// Called with s.mu held.
func (s *liveSession) publish(msg []byte) {
	for _, sub := range s.subscribers {
		select {
		case sub.msgs <- msg:
		default:
			go sub.closeSlow()
		}
	}
}

// tell sends one page an entry that is not part of the shared history (a
// refusal of that page's command), in order with its other updates.
func (s *liveSession) tell(sub *subscriber, e web.Entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tellLocked(sub, e)
}

// tellLocked is tell with s.mu held.
func (s *liveSession) tellLocked(sub *subscriber, e web.Entry) {
	entry, err := web.RenderString(context.Background(), web.TranscriptEntry(e))
	if err != nil {
		return
	}
	msg, err := json.Marshal(update{Type: "update", Entry: entry})
	if err != nil {
		return
	}
	s.send(sub, msg)
}

// closeAll disconnects every subscriber, for server shutdown.
func (s *liveSession) closeAll() {
	s.mu.Lock()
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	subs := append([]*subscriber(nil), s.subscribers...)
	s.mu.Unlock()
	for _, sub := range subs {
		sub.closeSlow()
	}
}
