import Foundation
import ShelfStore
import ShelfTransfer
import Synchronization
import Testing

/// `replace` imports on every backend: a skipped row keeps what it names, on the set-based
/// path and on the row-by-row one; items deleted with users are counted and confirmed.
@Suite("Conformance: replace imports")
struct ReplaceConformanceTests {
    private static func seed(_ store: Store) async throws {
        let importer = Importer(store: store)
        _ = try await importer.importUsers(
            from: .file(try TransferConformanceTests.file("u.csv", TransferConformanceTests.users)))
        _ = try await importer.importItems(
            from: .file(try TransferConformanceTests.file("i.csv", TransferConformanceTests.items)))
    }

    private static func replace(
        _ store: Store, _ table: String, _ text: String, confirm: (@Sendable (ReplaceDeletions) throws -> Void)? = nil
    ) async throws -> ImportSummary {
        var options = ImportOptions(mode: .replace, skipInvalid: true)
        options.confirmDeletions = confirm
        let path = try TransferConformanceTests.file("r.csv", text)
        let importer = Importer(store: store)
        return table == "users"
            ? try await importer.importUsers(from: .file(path), options: options)
            : try await importer.importItems(from: .file(path), options: options)
    }

    private static func itemIDs(_ store: Store) async throws -> [Int64] {
        try await store.items.items(matching: ItemQuery()).map(\.id.rawValue).sorted()
    }

    @Test(arguments: Backend.available)
    func skippedItemRowsKeepTheirItems(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            try await Self.seed(store)
            // Set-based: item 2's row is invalid (priority 7).
            let invalid = try await Self.replace(
                store, "items",
                "id,user,title,priority\n1,ann@example.com,A,0\n2,bob@example.com,B,7\n5,zoe@example.com,C,1\n")
            #expect((invalid.deleted, invalid.skipped) == (0, 1))
            #expect(try await Self.itemIDs(store) == [1, 2, 5])
            // Row by row: the store refuses item 2's row (no such owner); item 5 is not in the file.
            let refused = try await Self.replace(
                store, "items", "id,user,title\n1,ann@example.com,A\n2,nobody@example.com,B\n")
            #expect((refused.deleted, refused.skipped) == (1, 1))
            #expect(try await Self.itemIDs(store) == [1, 2])
            // An ID that cannot be read might be any item: nothing is deleted.
            let unreadable = try await Self.replace(
                store, "items", "id,user,title\n1,ann@example.com,A\nx1,ann@example.com,B\n")
            #expect(unreadable.deleted == 0)
            #expect(unreadable.deletionsWithheldBy?.position?.line == 3)
            #expect(try await Self.itemIDs(store) == [1, 2])
        }
    }

    @Test(arguments: Backend.available)
    func skippedUserRowsKeepTheUserAndTheirItems(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            try await Self.seed(store)
            // Bob's email mistyped (refused by the store: his ID is taken), Zoë's row invalid
            // (no name) but her email readable.
            let summary = try await Self.replace(
                store, "users",
                "id,name,email\n1,Ann,ann@example.com\n2,Bob,bob@@example.com\n,,zoe@example.com\n")
            #expect((summary.deleted, summary.itemsDeletedWithUsers, summary.skipped) == (0, 0, 2))
            #expect(
                try await store.users.users().map(\.email).sorted() == [
                    "ann@example.com", "bob@example.com", "zoe@example.com",
                ])
            // Zoë is not in the file: her item goes with her, once confirmed with the right counts.
            let seen = Mutex<ReplaceDeletions?>(nil)
            struct No: Error {}
            await #expect(throws: No.self) {
                _ = try await Self.replace(
                    store, "users", "name,email\nAnn,ann@example.com\nBob,bob@example.com\n",
                    confirm: { deletions in
                        seen.withLock { $0 = deletions }
                        throw No()
                    })
            }
            #expect(
                seen.withLock { $0 }
                    == ReplaceDeletions(
                        users: 1, items: 1, owners: [.init(email: "zoe@example.com", items: 1)], ownerCount: 1))
            #expect(try await Self.itemIDs(store) == [1, 2, 5])
            let done = try await Self.replace(
                store, "users", "name,email\nAnn,ann@example.com\nBob,bob@example.com\n", confirm: { _ in })
            #expect((done.deleted, done.itemsDeletedWithUsers) == (1, 1))
            #expect(try await Self.itemIDs(store) == [1, 2])
        }
    }
}
