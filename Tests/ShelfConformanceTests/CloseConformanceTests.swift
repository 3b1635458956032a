import Foundation
import ShelfStore
import Testing

/// A closed store refuses work with one clear error on every backend.
@Suite("Conformance: closing")
struct CloseConformanceTests {
    @Test(arguments: Backend.available)
    func aClosedStoreRefusesWorkWithTheClosedCode(_ backend: Backend) async throws {
        try await backend.withStore { store in
            let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
            await store.close()
            await store.close()  // twice is fine

            func isClosedError(_ error: any Error) -> Bool {
                guard let error = error as? StoreError else { return false }
                return error.code == .closed && error.message.contains("closed")
            }
            await #expect(performing: { _ = try await store.users.users() }, throws: isClosedError)
            await #expect(
                performing: { try await store.items.insert(NewItem(userID: ann, title: "Late")) },
                throws: isClosedError)
            await #expect(
                performing: { _ = try await store.items.count(matching: ItemQuery()) }, throws: isClosedError)
            await #expect(
                performing: { _ = try await store.liveItems(matching: ItemQuery(), limit: 10) }, throws: isClosedError)
        }
    }
}
