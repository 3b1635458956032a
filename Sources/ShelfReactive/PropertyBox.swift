internal import Synchronization

/// Receives a property's values and, at most once, its end.
struct Sink<Value: Sendable>: Sendable {
    let value: @Sendable (Value) -> Void
    let end: @Sendable () -> Void
}

/// The state behind a property: its current value and observers, and the delivery queue
/// that serializes calls to them.
///
/// Delivery discipline (what `Property` documents):
/// - Observers are called outside the lock, never two at once for one box.
/// - Events are delivered in the order they were made. A set made while a delivery is
///   running (from inside an observer, or on another thread) is queued and delivered by
///   the thread already delivering, right after the current event.
/// - An observer added after a set never sees that set; it first sees the value current
///   when it was added.
final class PropertyBox<Value: Sendable>: Sendable {
    private struct Entry {
        let id: UInt64
        /// The sequence number current when the observer was added: it gets only later sets.
        let since: UInt64
        let sink: Sink<Value>
        let active: Observation
    }

    private enum Event {
        case set(Value, sequence: UInt64)
        case initial(observer: UInt64, Value)
        case end
    }

    private struct State {
        var value: Value
        var sequence: UInt64 = 0
        var nextID: UInt64 = 0
        var observers: [Entry] = []
        var queue: [Event] = []
        var queueStart = 0
        var delivering = false
        var ended = false
    }

    private let state: Mutex<State>

    init(_ value: Value) {
        state = Mutex(State(value: value))
    }

    var value: Value { state.withLock { $0.value } }

    /// Replaces the value and delivers it. Ignored once ended.
    func set(_ value: Value) {
        modify { $0 = value }
    }

    /// Changes the value under the lock, then delivers the result, unless `transform`
    /// returns false (nothing changed). Ignored once ended.
    func modify(_ transform: (inout Value) -> Bool) {
        // The replaced value is released after the lock: its deinit may run arbitrary code.
        let (start, replaced) = state.withLock { state -> (Bool, Value?) in
            guard !state.ended else { return (false, nil) }
            let previous = state.value
            guard transform(&state.value) else { return (false, nil) }
            state.sequence += 1
            state.queue.append(.set(state.value, sequence: state.sequence))
            return (Self.claimDelivery(&state), previous)
        }
        withExtendedLifetime(replaced) {}
        if start { drain() }
    }

    func modify(_ transform: (inout Value) -> Void) {
        modify { value -> Bool in
            transform(&value)
            return true
        }
    }

    /// Ends the box: observers get their end, then are dropped. Idempotent.
    func end() {
        let start = state.withLock { state -> Bool in
            guard !state.ended else { return false }
            state.ended = true
            state.queue.append(.end)
            return Self.claimDelivery(&state)
        }
        if start { drain() }
    }

    /// Adds an observer. With `initial`, its first call is the current value.
    /// Once ended, the sink gets the current value (with `initial`) and its end at once.
    func subscribe(initial: Bool, _ sink: Sink<Value>) -> Observation {
        let active = Observation()
        let outcome = state.withLock { state -> (start: Bool, endedValue: Value?) in
            if state.ended { return (false, state.value) }
            state.nextID += 1
            let id = state.nextID
            state.observers.append(Entry(id: id, since: state.sequence, sink: sink, active: active))
            guard initial else { return (false, nil) }
            state.queue.append(.initial(observer: id, state.value))
            return (Self.claimDelivery(&state), nil)
        }
        if let value = outcome.endedValue {
            if initial { sink.value(value) }
            sink.end()
            active.cancel()
            return active
        }
        active.onCancel { [weak self] in self?.remove(active) }
        if outcome.start { drain() }
        return active
    }

    private func remove(_ observation: Observation) {
        // Released after the lock: dropping a sink may release the last reference to
        // something whose deinit ends this very box.
        let removed = state.withLock { state -> [Entry] in
            let removed = state.observers.filter { $0.active === observation }
            state.observers.removeAll { $0.active === observation }
            return removed
        }
        withExtendedLifetime(removed) {}
    }

    /// Marks the box as delivering; returns true when the caller must drain.
    private static func claimDelivery(_ state: inout State) -> Bool {
        guard !state.delivering else { return false }
        state.delivering = true
        return true
    }

    /// Delivers queued events until the queue is empty. Only one thread drains at a time.
    private func drain() {
        while true {
            // Delivered events are handed out of the lock to be released: an event holds a
            // value, and the last reference to a value may run a deinit that touches this box.
            var spent: [Event] = []
            let next = state.withLock { state -> (Event, [Entry])? in
                guard state.queueStart < state.queue.count else {
                    swap(&spent, &state.queue)
                    state.queueStart = 0
                    state.delivering = false
                    return nil
                }
                let event = state.queue[state.queueStart]
                state.queueStart += 1
                let observers = state.observers
                if case .end = event { state.observers = [] }
                return (event, observers)
            }
            guard let (event, observers) = next else {
                withExtendedLifetime(spent) {}
                return
            }
            switch event {
            case .set(let value, let sequence):
                for entry in observers where entry.since < sequence && !entry.active.isCancelled {
                    entry.sink.value(value)
                }
            case .initial(let id, let value):
                if let entry = observers.first(where: { $0.id == id }), !entry.active.isCancelled {
                    entry.sink.value(value)
                }
            case .end:
                for entry in observers where !entry.active.isCancelled {
                    entry.sink.end()
                    entry.active.cancel()
                }
            }
        }
    }
}
