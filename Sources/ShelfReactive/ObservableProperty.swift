public import Observation

/// A `Property` as an `@Observable`-style object: `value` follows the property on the main
/// actor, and Swift's observation (`withObservationTracking`, SwiftUI views) sees each change.
///
/// Use it to feed SwiftUI (or any code built on Swift's Observation) from view models and
/// live store values, which publish `Property`s:
///
/// ```swift
/// let items = ObservableProperty(viewModel.state)   // on the main actor
/// // SwiftUI: Text("\(items.value)") re-renders when the state changes
/// ```
///
/// The object observes the property as long as it exists (it keeps the property alive); it
/// stops when released or when `stop()` is called, keeping the last value.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)
@MainActor
public final class ObservableProperty<Value: Sendable>: Observable {
    private let registrar = ObservationRegistrar()
    private var storage: Value
    private let token = Lifetime.Token()

    /// The property's current value; a change is reported to Swift's observation.
    public private(set) var value: Value {
        get {
            registrar.access(self, keyPath: \.value)
            return storage
        }
        set {
            registrar.withMutation(of: self, keyPath: \.value) { storage = newValue }
        }
    }

    /// Follows `property` from now on: `value` is its current value, then each later one,
    /// set on the main actor.
    public init(_ property: some PropertyProtocol<Value>) {
        storage = property.value
        property.changes.observe(during: token.lifetime) { [weak self] value in
            Task { @MainActor in self?.value = value }
        }
    }

    /// Stops following the property; `value` keeps the last value.
    public func stop() {
        token.end()
    }

    isolated deinit {
        token.end()
    }
}
