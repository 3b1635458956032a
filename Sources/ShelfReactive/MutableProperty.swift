/// The owner of a changing value: sets it and publishes every change to observers.
///
/// Hand out `property` (read-only) and keep the `MutableProperty` to yourself. When the
/// `MutableProperty` is released, every observation of it ends. See `Property` for the
/// threading and ordering contract.
public final class MutableProperty<Value: Sendable>: PropertyProtocol {
    let box: PropertyBox<Value>

    /// A property holding `value` until it is set.
    public init(_ value: Value) {
        box = PropertyBox(value)
    }

    deinit { box.end() }

    /// The current value. Setting it delivers the new value to every observer, on this
    /// thread (or, during a delivery, right after it; see `Property`).
    public var value: Value {
        get { box.value }
        set { box.set(newValue) }
    }

    /// Sets the value only when `transform` says it changed (returns true), atomically with
    /// respect to other sets.
    public func modify(_ transform: (inout Value) -> Bool) {
        box.modify(transform)
    }

    /// A read-only view; it does not keep this `MutableProperty` alive.
    public var property: Property<Value> { Property(self) }
}
