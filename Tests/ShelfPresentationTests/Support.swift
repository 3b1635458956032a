import Dispatch
import Foundation
import ShelfReactive
import ShelfSQLiteBackend
import ShelfStore
import Synchronization

/// Collects every value a property publishes, from any thread, and waits for one.
///
/// Waiting polls nothing: each value published is checked against the waiters when it
/// arrives. The deadline only ends a wait that would otherwise hang a failing test.
final class Recorder<Value: Sendable>: Sendable {
    private struct Waiter {
        let id: Int
        /// True: only the newest value counts (`latest`); false: any value seen (`next`).
        let newestOnly: Bool
        let predicate: @Sendable (Value) -> Bool
        let continuation: CheckedContinuation<Value?, Never>
    }

    private struct State {
        var values: [Value] = []
        var waiters: [Waiter] = []
        var nextID = 0
    }

    private final class Storage: Sendable {
        let state = Mutex(State())

        func append(_ value: Value) {
            let satisfied = state.withLock { state in
                state.values.append(value)
                let (done, waiting) = (
                    state.waiters.filter { $0.predicate(value) }, state.waiters.filter { !$0.predicate(value) }
                )
                state.waiters = waiting
                return done
            }
            for waiter in satisfied { waiter.continuation.resume(returning: value) }
        }

        /// Ends the wait `id` if it still waits: with a match when there is one by now, else nil.
        func expire(_ id: Int) {
            let ended = state.withLock { state -> (Waiter, Value?)? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                let waiter = state.waiters.remove(at: index)
                let match =
                    waiter.newestOnly
                    ? state.values.last.flatMap { waiter.predicate($0) ? $0 : nil }
                    : state.values.last(where: waiter.predicate)
                return (waiter, match)
            }
            if let (waiter, match) = ended { waiter.continuation.resume(returning: match) }
        }
    }

    private let storage = Storage()
    private let token = Lifetime.Token()

    init(_ property: Property<Value>) {
        property.observe(during: token.lifetime) { [storage] value in storage.append(value) }
    }

    /// Everything published so far, the current value first.
    var all: [Value] { storage.state.withLock { $0.values } }

    var last: Value? { all.last }

    /// Waits until a published value satisfies `predicate` (checking those already seen
    /// first); returns it, or nil after `timeout`.
    func next(timeout: Duration = .seconds(120), where predicate: @escaping @Sendable (Value) -> Bool) async -> Value? {
        await wait(newestOnly: false, timeout: timeout, predicate)
    }

    /// Waits until the latest value satisfies `predicate`; returns it, or nil after `timeout`.
    func latest(timeout: Duration = .seconds(120), where predicate: @escaping @Sendable (Value) -> Bool) async
        -> Value?
    {
        await wait(newestOnly: true, timeout: timeout, predicate)
    }

    private func wait(newestOnly: Bool, timeout: Duration, _ predicate: @escaping @Sendable (Value) -> Bool) async
        -> Value?
    {
        let storage = self.storage
        var waitID = 0
        let value = await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
            let found = storage.state.withLock { state -> Value?? in
                let match =
                    newestOnly
                    ? state.values.last.flatMap { predicate($0) ? $0 : nil } : state.values.last(where: predicate)
                if let match { return .some(match) }
                state.nextID += 1
                waitID = state.nextID
                state.waiters.append(
                    Waiter(id: state.nextID, newestOnly: newestOnly, predicate: predicate, continuation: continuation))
                return .none
            }
            if let found {
                continuation.resume(returning: found)
                return
            }
            // The deadline, off the cooperative pool (which may be starved in a full run).
            let id = waitID
            DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(Int(timeout.components.seconds))) {
                storage.expire(id)
            }
        }
        return value
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
