internal import Synchronization

extension PropertyProtocol {
    /// A property that changes at most once per `interval`: the first change after a quiet
    /// interval is delivered at once, and changes during the interval that follows are held,
    /// the latest of them delivered when it ends (then another interval starts). Intermediate
    /// values are dropped; the last value is never lost.
    ///
    /// For a service observing a store during a large import: it sees the newest state a few
    /// times a second instead of after every commit. Values are delivered on a task of the
    /// global executor (the first one on the thread that set it); when the source ends, a
    /// held value is delivered at once and the result ends too.
    public func throttle<C: Clock>(for interval: C.Duration, clock: C) -> Property<Value> {
        let source = property
        let box = PropertyBox(source.value)
        let state = TimingLock<Value>()
        let link = DerivedLink(sources: [source])
        let deadline: @Sendable () -> C.Instant = { clock.now.advanced(by: interval) }
        // Ends the interval: delivers the held value and starts another interval, or closes.
        @Sendable func closeWindow(at end: C.Instant) {
            Task {
                try? await clock.sleep(until: end, tolerance: nil)
                let next = state.withLock { state -> (Value, C.Instant)? in
                    guard let held = state.held else {
                        state.windowOpen = false
                        return nil
                    }
                    state.held = nil
                    return (held, deadline())
                }
                guard let (value, nextEnd) = next else { return }
                box.set(value)
                closeWindow(at: nextEnd)
            }
        }
        link.hold(
            source.subscribe(
                initial: false,
                Sink(
                    value: { value in
                        let deliverNow = state.withLock { state -> Bool in
                            guard !state.ended else { return false }
                            if state.windowOpen {
                                state.held = value
                                return false
                            }
                            state.windowOpen = true
                            return true
                        }
                        if deliverNow {
                            box.set(value)
                            closeWindow(at: deadline())
                        }
                    },
                    end: {
                        let held = state.withLock { state -> Value? in
                            state.ended = true
                            defer { state.held = nil }
                            return state.held
                        }
                        if let held { box.set(held) }
                        box.end()
                    })))
        return Property(box: box, upstream: link)
    }

    /// `throttle(for:clock:)` on the continuous clock.
    public func throttle(for interval: Duration) -> Property<Value> {
        throttle(for: interval, clock: ContinuousClock())
    }

    /// A property that changes only once its source has been quiet for `interval`: each
    /// change restarts the wait, and the value is delivered when no other change followed
    /// within `interval`. A source that changes without pause delivers nothing until it
    /// pauses (use `throttle` to see progress). When the source ends, a waiting value is
    /// delivered at once and the result ends too.
    public func debounce<C: Clock>(for interval: C.Duration, clock: C) -> Property<Value> {
        let source = property
        let box = PropertyBox(source.value)
        let state = TimingLock<Value>()
        let link = DerivedLink(sources: [source])
        link.hold(
            source.subscribe(
                initial: false,
                Sink(
                    value: { value in
                        let end = clock.now.advanced(by: interval)
                        let generation = state.withLock { state -> Int? in
                            guard !state.ended else { return nil }
                            state.held = value
                            state.generation += 1
                            return state.generation
                        }
                        guard let generation else { return }
                        Task {
                            try? await clock.sleep(until: end, tolerance: nil)
                            let due = state.withLock { state -> Value? in
                                guard state.generation == generation, let held = state.held else { return nil }
                                state.held = nil
                                return held
                            }
                            if let due { box.set(due) }
                        }
                    },
                    end: {
                        let held = state.withLock { state -> Value? in
                            state.ended = true
                            state.generation += 1
                            defer { state.held = nil }
                            return state.held
                        }
                        if let held { box.set(held) }
                        box.end()
                    })))
        return Property(box: box, upstream: link)
    }

    /// `debounce(for:clock:)` on the continuous clock.
    public func debounce(for interval: Duration) -> Property<Value> {
        debounce(for: interval, clock: ContinuousClock())
    }
}

/// The state of one `throttle` or `debounce`, shared by its source's sink and its tasks.
private final class TimingLock<Value: Sendable>: Sendable {
    private let state = Mutex(TimingState<Value>())

    func withLock<T: Sendable>(_ body: (inout sending TimingState<Value>) -> sending T) -> T {
        state.withLock { state in body(&state) }
    }
}

/// What `throttle` and `debounce` remember between changes.
private struct TimingState<Value> {
    /// The latest value not delivered yet.
    var held: Value?
    /// Throttle: an interval is running; changes are held until it ends.
    var windowOpen = false
    /// Debounce: bumped by every change; a wait delivers only if it is still the latest.
    var generation = 0
    /// The source ended: nothing more is held or delivered.
    var ended = false
}
