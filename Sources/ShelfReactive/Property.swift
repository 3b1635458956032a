/// A value that changes over time, and the only observable type the upper layers see.
///
/// **Contract**
/// - `value` is the current value, readable from any thread.
/// - `observe(during:_:)` calls the handler with the current value, then with every later
///   value, until the observation ends: when its `Lifetime` ends, when it is cancelled, or
///   when the property goes away (its `MutableProperty` is released, or the source of a
///   derived property ends).
/// - **Threading.** Delivery is synchronous on the thread that sets the value. Handlers of
///   one property are never called concurrently: a value set while a delivery is running
///   (from inside a handler, or from another thread) is queued and delivered by the
///   delivering thread as soon as the current delivery ends. A set from inside a handler
///   therefore neither deadlocks nor recurses. Use `observe(during:on:_:)` or
///   `observeOnMainActor(during:_:)` to deliver on an actor instead.
/// - **Ordering.** Values arrive in the order they were set; none is skipped, except by
///   operators that say so (`skipRepeats`) and by `values`, which keeps only the newest
///   value a slow consumer has not taken yet.
/// - **Lifetime.** An observation keeps its property (and the properties it derives from)
///   alive until it ends; a derived property keeps its sources alive. Nothing retains the
///   observer but the observation.
public final class Property<Value: Sendable>: PropertyProtocol {
    let box: PropertyBox<Value>
    /// What must stay alive as long as this property or any observation of it: for a derived
    /// property, its link to its sources; for a live query, the query.
    private let upstream: (any Sendable & AnyObject)?

    init(box: PropertyBox<Value>, upstream: (any Sendable & AnyObject)?) {
        self.box = box
        self.upstream = upstream
    }

    /// A property that always holds `value` and never changes.
    public init(value: Value) {
        box = PropertyBox(value)
        box.end()
        upstream = nil
    }

    /// A read-only view of `mutable`. It does not keep `mutable` alive: when `mutable` is
    /// released, observations of this view end and `value` keeps the last value.
    public init(_ mutable: MutableProperty<Value>) {
        box = mutable.box
        upstream = nil
    }

    /// A property whose value is kept by `box` and which keeps `owner` alive as long as it,
    /// or any observation of it, exists. For types that publish their state as a property
    /// (live queries): the owner holds the `MutableProperty` it sets.
    public init(_ mutable: MutableProperty<Value>, retaining owner: some Sendable & AnyObject) {
        box = mutable.box
        upstream = owner
    }

    /// `self`: a property is its own property to observe.
    public var property: Property<Value> { self }

    /// The current value.
    public var value: Value { box.value }

    func subscribe(initial: Bool, _ sink: Sink<Value>) -> Observation {
        // The sink holds `upstream`, so an observation keeps the chain above it alive.
        let upstream = self.upstream
        return box.subscribe(
            initial: initial,
            Sink(
                value: { value in
                    withExtendedLifetime(upstream) { sink.value(value) }
                },
                end: sink.end))
    }
}

/// What `Property` and `MutableProperty` share: a current value and observation.
public protocol PropertyProtocol<Value>: Sendable {
    associatedtype Value: Sendable
    /// The current value.
    var value: Value { get }
    /// The property to observe.
    var property: Property<Value> { get }
}

extension PropertyProtocol {
    /// Calls `handler` with the current value, then with every change, until `lifetime`
    /// ends, the returned observation is cancelled, or the property goes away. See
    /// `Property` for threading and ordering.
    @discardableResult
    public func observe(
        during lifetime: Lifetime, _ handler: @escaping @Sendable (Value) -> Void
    ) -> Observation {
        guard !lifetime.hasEnded else { return .ended }
        let observation = property.subscribe(initial: true, Sink(value: handler, end: {}))
        observation.end(with: lifetime)
        return observation
    }

    /// Later values only: the changes after now, without the current value.
    public var changes: PropertyChanges<Value> { PropertyChanges(property: property) }
}

/// The changes of a property: its later values, without the current one.
public struct PropertyChanges<Value: Sendable>: Sendable {
    let property: Property<Value>

    /// Calls `handler` with every value set after now, until `lifetime` ends, the returned
    /// observation is cancelled, or the property goes away.
    @discardableResult
    public func observe(
        during lifetime: Lifetime, _ handler: @escaping @Sendable (Value) -> Void
    ) -> Observation {
        guard !lifetime.hasEnded else { return .ended }
        let observation = property.subscribe(initial: false, Sink(value: handler, end: {}))
        observation.end(with: lifetime)
        return observation
    }
}
