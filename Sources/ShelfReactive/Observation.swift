internal import Synchronization

/// A running observation of a property. `cancel()` ends it.
///
/// Releasing an `Observation` does not end it: an observation lasts until it is cancelled,
/// its `Lifetime` ends, or its property goes away. After `cancel()` returns, the handler is
/// not called again by the thread that cancelled; a delivery already running on another
/// thread may still finish its current call.
public final class Observation: Sendable {
    private let cancellers: Mutex<[@Sendable () -> Void]?>

    init(_ cancel: @escaping @Sendable () -> Void) {
        cancellers = Mutex([cancel])
    }

    init() {
        cancellers = Mutex([])
    }

    /// An observation that has already ended.
    static var ended: Observation {
        let observation = Observation()
        observation.cancel()
        return observation
    }

    /// True once cancelled.
    public var isCancelled: Bool { cancellers.withLock { $0 == nil } }

    /// Ends the observation. Idempotent, callable from any thread, including from inside
    /// the handler.
    public func cancel() {
        let actions = cancellers.withLock { cancellers in
            defer { cancellers = nil }
            return cancellers ?? []
        }
        for action in actions { action() }
    }

    /// Adds work to do on cancel; runs it at once when already cancelled.
    func onCancel(_ action: @escaping @Sendable () -> Void) {
        let added = cancellers.withLock { cancellers -> Bool in
            guard cancellers != nil else { return false }
            cancellers!.append(action)
            return true
        }
        if !added { action() }
    }

    /// Ends this observation when `lifetime` ends, and stops watching the lifetime when
    /// this observation is cancelled first (so lifetimes do not collect dead entries).
    func end(with lifetime: Lifetime) {
        guard lifetime !== Lifetime.never else { return }
        guard let key = lifetime.onEnd({ self.cancel() }) else { return }
        onCancel { [weak lifetime] in lifetime?.removeAction(key) }
    }
}
