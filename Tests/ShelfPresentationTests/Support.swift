import Foundation
import ShelfReactive
import ShelfSQLiteBackend
import ShelfStore
import Synchronization

/// Collects every value a property publishes, from any thread, and waits for one.
final class Recorder<Value: Sendable>: Sendable {
    private final class Storage: Sendable {
        let values = Mutex<[Value]>([])
    }

    private let storage = Storage()
    private let token = Lifetime.Token()

    init(_ property: Property<Value>) {
        property.observe(during: token.lifetime) { [storage] value in storage.values.withLock { $0.append(value) } }
    }

    /// Everything published so far, the current value first.
    var all: [Value] { storage.values.withLock { $0 } }

    var last: Value? { all.last }

    /// Waits until a published value satisfies `predicate` (checking those already seen
    /// first); returns it, or nil after `timeout`.
    func next(timeout: Duration = .seconds(30), where predicate: @Sendable (Value) -> Bool) async -> Value? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let match = all.last(where: predicate) { return match }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return all.last(where: predicate)
    }

    /// Waits until the latest value satisfies `predicate`; returns it, or nil after `timeout`.
    func latest(timeout: Duration = .seconds(30), where predicate: @Sendable (Value) -> Bool) async -> Value? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let value = last, predicate(value) { return value }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return last.flatMap { predicate($0) ? $0 : nil }
    }
}

/// A fresh temporary store with `users` users and `items` items (item n titled "Item n",
/// created n seconds after a fixed date, so newest first is n descending).
func makeStore(users: Int = 2, items: Int = 0) async throws -> (Store, [User]) {
    let store = try Store.temporary()
    let names = ["Ada Lovelace", "Grace Hopper", "Edsger Dijkstra", "Barbara Liskov"]
    var created: [User] = []
    for index in 0..<users {
        let name = names[index % names.count] + (index >= names.count ? " \(index)" : "")
        let id = try await store.users.insert(
            NewUser(name: name, email: "user\(index)@example.com", createdAt: fixedDate))
        created.append(try await store.users.user(id: id)!)
    }
    if items > 0 {
        let new = (1...items).map { n in
            NewItem(
                userID: created[n % created.count].id, title: "Item \(n)", notes: n % 2 == 0 ? "even notes" : nil,
                priority: n % 4, createdAt: fixedDate.addingTimeInterval(Double(n)))
        }
        for chunk in stride(from: 0, to: new.count, by: 5_000) {
            try await store.items.insert(contentsOf: Array(new[chunk..<min(chunk + 5_000, new.count)]))
        }
    }
    return (store, created)
}

let fixedDate = Date(timeIntervalSince1970: 1_700_000_000)
