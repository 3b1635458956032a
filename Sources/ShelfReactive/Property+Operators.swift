internal import Synchronization

/// Keeps a derived property's subscriptions to its sources, and the sources themselves,
/// alive while the derived property or an observation of it exists; cancels them after.
final class DerivedLink: Sendable {
    private let sources: [any Sendable]
    private let observations: Mutex<[Observation]>

    init(sources: [any Sendable]) {
        self.sources = sources
        observations = Mutex([])
    }

    func hold(_ observation: Observation) {
        observations.withLock { $0.append(observation) }
    }

    deinit {
        for observation in observations.withLock({ $0 }) { observation.cancel() }
    }
}

extension PropertyProtocol {
    /// A property holding `transform(value)`, updated on every change. `transform` runs once
    /// per change, on the delivering thread.
    public func map<T: Sendable>(_ transform: @escaping @Sendable (Value) -> T) -> Property<T> {
        let source = property
        let box = PropertyBox(transform(source.value))
        let link = DerivedLink(sources: [source])
        link.hold(
            source.subscribe(
                initial: false,
                Sink(value: { box.set(transform($0)) }, end: { box.end() })))
        return Property(box: box, upstream: link)
    }

    /// A property that delivers a value only when `isEquivalent(previous, new)` is false.
    public func skipRepeats(by isEquivalent: @escaping @Sendable (Value, Value) -> Bool) -> Property<Value> {
        let source = property
        let box = PropertyBox(source.value)
        let link = DerivedLink(sources: [source])
        link.hold(
            source.subscribe(
                initial: false,
                Sink(
                    value: { new in
                        box.modify { current -> Bool in
                            guard !isEquivalent(current, new) else { return false }
                            current = new
                            return true
                        }
                    },
                    end: { box.end() })))
        return Property(box: box, upstream: link)
    }

    /// Flattens a property whose value selects another property: the result holds the
    /// value of the latest selected property, and switches when the selection changes.
    /// The property selected before is no longer observed (its later values are dropped).
    ///
    /// Typical use: a search text selecting a live query.
    public func flatMapLatest<Inner: PropertyProtocol>(
        _ select: @escaping @Sendable (Value) -> Inner
    ) -> Property<Inner.Value> {
        let outer = property
        let first = select(outer.value).property
        let box = PropertyBox(first.value)
        let link = DerivedLink(sources: [outer])
        let latest = LatestInner<Inner.Value>(box: box)
        latest.switchTo(first, initial: false)
        link.hold(
            outer.subscribe(
                initial: false,
                Sink(
                    value: { [weak latest] value in latest?.switchTo(select(value).property, initial: true) },
                    end: {})))
        link.hold(Observation { latest.stop() })
        return Property(box: box, upstream: link)
    }
}

/// The inner subscription of `flatMapLatest`: one at a time, with a generation number so a
/// value from a replaced inner property that arrives late is dropped.
private final class LatestInner<Value: Sendable>: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var observation: Observation?
        var inner: Property<Value>?
    }
    private let state = Mutex(State())
    private let box: PropertyBox<Value>

    init(box: PropertyBox<Value>) {
        self.box = box
    }

    func switchTo(_ inner: Property<Value>, initial: Bool) {
        let (generation, previous) = state.withLock { state in
            state.generation += 1
            defer {
                state.observation = nil
                state.inner = inner
            }
            return (state.generation, state.observation)
        }
        previous?.cancel()
        let observation = inner.subscribe(
            initial: initial,
            Sink(
                value: { [weak self] value in
                    guard let self else { return }
                    // Deliver under the generation check: the box's lock is taken inside
                    // ours, never the other way round.
                    self.state.withLock { state in
                        guard state.generation == generation else { return }
                        self.box.set(value)
                    }
                },
                end: {}))
        let stale = state.withLock { state -> Bool in
            guard state.generation == generation else { return true }
            state.observation = observation
            return false
        }
        if stale { observation.cancel() }
    }

    func stop() {
        let observation = state.withLock { state in
            state.generation += 1
            defer {
                state.observation = nil
                state.inner = nil
            }
            return state.observation
        }
        observation?.cancel()
    }
}

extension PropertyProtocol where Value: Equatable {
    /// A property that delivers a value only when it differs from the previous one.
    public func skipRepeats() -> Property<Value> {
        skipRepeats(by: ==)
    }
}

/// A property holding the latest values of `a` and `b` together, updated when either
/// changes. It ends when both sources have ended.
public func combineLatest<A: PropertyProtocol, B: PropertyProtocol>(_ a: A, _ b: B) -> Property<(A.Value, B.Value)> {
    let a = a.property
    let b = b.property
    let box = PropertyBox((a.value, b.value))
    let link = DerivedLink(sources: [a, b])
    let ended = Mutex(0)
    let end: @Sendable () -> Void = {
        if ended.withLock({ count in
            count += 1
            return count == 2
        }) {
            box.end()
        }
    }
    link.hold(a.subscribe(initial: false, Sink(value: { v in box.modify { $0.0 = v } }, end: end)))
    link.hold(b.subscribe(initial: false, Sink(value: { v in box.modify { $0.1 = v } }, end: end)))
    return Property(box: box, upstream: link)
}

/// A property holding the latest values of `a`, `b` and `c` together.
public func combineLatest<A: PropertyProtocol, B: PropertyProtocol, C: PropertyProtocol>(
    _ a: A, _ b: B, _ c: C
) -> Property<(A.Value, B.Value, C.Value)> {
    combineLatest(combineLatest(a, b), c).map { pair, c in (pair.0, pair.1, c) }
}
