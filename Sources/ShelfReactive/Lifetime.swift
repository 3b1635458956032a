internal import Synchronization

/// How long something lasts: observations made `during` a lifetime end when it ends.
///
/// A lifetime ends when its `Lifetime.Token` is released (or `end()` is called on it).
/// An object that observes keeps the token in a stored property, so its observations end
/// when it is deallocated — the seeds' `takeUntil(willDealloc)`:
///
/// ```swift
/// final class ItemListController {
///     private let token = Lifetime.Token()
///     private var lifetime: Lifetime { token.lifetime }
///     func viewDidLoad() {
///         viewModel.state.observe(during: lifetime) { [unowned self] in render($0) }
///     }
/// }
/// ```
///
/// Thread-safe. Actions added after the end run at once, on the adding thread.
public final class Lifetime: Sendable {
    private struct State {
        var ended = false
        var nextKey = 0
        var actions: [Int: @Sendable () -> Void] = [:]
    }

    private let state = Mutex(State())

    init() {}

    /// A lifetime that never ends.
    public static let never = Lifetime()

    /// True once the lifetime has ended.
    public var hasEnded: Bool { state.withLock { $0.ended } }

    /// Runs `action` when the lifetime ends (at once if it has). Returns a key for
    /// `removeAction(_:)`, or nil when it ran at once.
    @discardableResult
    func onEnd(_ action: @escaping @Sendable () -> Void) -> Int? {
        let key: Int? = state.withLock { state in
            guard !state.ended else { return nil }
            state.nextKey += 1
            state.actions[state.nextKey] = action
            return state.nextKey
        }
        if key == nil { action() }
        return key
    }

    func removeAction(_ key: Int) {
        _ = state.withLock { $0.actions.removeValue(forKey: key) }
    }

    func end() {
        let actions: [@Sendable () -> Void] = state.withLock { state in
            guard !state.ended else { return [] }
            state.ended = true
            defer { state.actions = [:] }
            return state.actions.sorted { $0.key < $1.key }.map(\.value)
        }
        for action in actions { action() }
    }

    /// Owns a `Lifetime`: the lifetime ends when the token is released or `end()` is called.
    public final class Token: Sendable {
        /// The lifetime this token ends.
        public let lifetime = Lifetime()

        /// A token whose lifetime has not ended.
        public init() {}

        /// Ends the lifetime now (idempotent).
        public func end() { lifetime.end() }

        deinit { lifetime.end() }
    }
}
