internal import ShelfReactive
internal import ShelfSQLite
internal import ShelfStore

/// A live query and the property it publishes to. The property retains this object, so
/// the query runs while the property or an observation of it exists.
final class LiveValue<Value: Equatable & Sendable>: Sendable {
    let query: LiveQuery<Value>
    private let mutable: MutableProperty<LiveResult<Value>>

    init(query: LiveQuery<Value>) {
        self.query = query
        let initial = query.value
        let mutable = MutableProperty(LiveResult<Value>.success(initial))
        self.mutable = mutable
        // The query publishes only outcomes that differ from the last one.
        query.start(from: initial) { [weak mutable] outcome in
            switch outcome {
            case .value(let value): mutable?.value = .success(value)
            case .failure(let error): mutable?.value = .failure(StoreError.translatingAny(error))
            }
        }
    }

    var property: Property<LiveResult<Value>> { Property(mutable, retaining: self) }
}
