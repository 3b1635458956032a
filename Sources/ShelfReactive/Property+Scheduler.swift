public import Dispatch
internal import Synchronization

/// Where an observer's values are delivered, chosen by the caller (as GRDB's
/// `ValueObservationScheduler`): the live values of a store are set on the store's own
/// threads, and each caller picks where its handler runs instead of hopping itself.
public enum PropertyScheduler: Sendable {
    /// On the thread that sets the value, synchronously: the cheapest; the handler must be
    /// quick and must not block (it holds up the store's delivery to other observers).
    case immediate
    /// On the main actor, in order (`observeOnMainActor`): for UI code.
    case mainActor
    /// On `queue`, in order when the queue is serial: for code that owns a queue.
    case queue(DispatchQueue)
}

extension PropertyProtocol {
    /// Calls `handler` with the current value, then with every change, on `scheduler`, until
    /// `lifetime` ends, the returned observation is cancelled, or the property goes away. For a
    /// task, iterate `values` (an `AsyncSequence`) instead.
    ///
    /// Values arrive in the order they were set (on a `.queue`, when it is serial). Once the
    /// observation has ended, no value is delivered, even one already queued.
    @discardableResult
    public func observe(
        during lifetime: Lifetime, on scheduler: PropertyScheduler, _ handler: @escaping @Sendable (Value) -> Void
    ) -> Observation {
        switch scheduler {
        case .immediate:
            return observe(during: lifetime, handler)
        case .mainActor:
            return observeOnMainActor(during: lifetime) { handler($0) }
        case .queue(let queue):
            guard !lifetime.hasEnded else { return .ended }
            let ended = EndFlag()
            let observation = property.subscribe(
                initial: true,
                Sink(
                    value: { value in
                        queue.async {
                            guard !ended.isSet else { return }
                            handler(value)
                        }
                    }, end: {}))
            observation.onCancel { ended.set() }
            observation.end(with: lifetime)
            return observation
        }
    }
}

/// A flag set once, read from any thread.
private final class EndFlag: Sendable {
    private let storage = Atomic<Bool>(false)
    var isSet: Bool { storage.load(ordering: .acquiring) }
    func set() { storage.store(true, ordering: .releasing) }
}
