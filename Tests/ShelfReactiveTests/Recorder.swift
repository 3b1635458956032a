import Synchronization

/// Collects values delivered to a handler, from any thread.
final class Recorder<Value: Sendable>: Sendable {
    private let storage = Mutex<[Value]>([])

    var values: [Value] { storage.withLock { $0 } }

    func append(_ value: Value) { storage.withLock { $0.append(value) } }

    var handler: @Sendable (Value) -> Void { { self.append($0) } }
}

/// An object to watch with a weak reference.
final class Canary: Sendable {}

/// Small shared state for tests, usable from `@Sendable` closures.
final class Locked<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    init(_ value: Value) { storage = Mutex(value) }

    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { storage.withLock { body(&$0) } }

    var value: Value { storage.withLock { $0 } }
}

/// A weak reference settable from `@Sendable` closures.
final class WeakReference<Object: AnyObject & Sendable>: Sendable {
    private struct Box: @unchecked Sendable {
        // Sendable: Object is Sendable; the weak slot is only touched under the Mutex.
        weak var object: Object?
    }
    private let storage = Mutex(Box())

    var object: Object? {
        get { storage.withLock { $0.object } }
        set { storage.withLock { $0.object = newValue } }
    }
}
