import Foundation
import ShelfSQLiteBackend
import ShelfStore
import Testing

/// `Store.copy(to:)` on every backend, and the copy's list of columns against each schema.
@Suite("Conformance: copy")
struct CopyConformanceTests {
    /// A migration that adds a column of data must add it to `CopyTable` too, or copies would
    /// leave it behind: the list and each backend's schema hold the same columns.
    @Test(arguments: Backend.available)
    func theCopiedColumnsAreExactlyTheSchemasData(_ backend: Backend) async throws {
        try await backend.withStore { store in
            let copyable = store.backend
            let (schema, derived) = try await onThread {
                try copyable.withCopySnapshot { snapshot in (try snapshot.schemaColumns(), snapshot.derivedColumns) }
            }
            #expect(CopyTable.unknownColumns(in: schema, ignoring: derived) == [])
            for table in CopyTable.allCases {
                #expect(Set(schema[table.name] ?? []).isSuperset(of: table.columns.map(\.name)), "\(table.name)")
            }
        }
    }

    /// Every backend to a SQLite file and back into a fresh store of the same backend: the
    /// fingerprints agree, IDs and versions survive, and the item sequence stays ahead.
    @Test(arguments: Backend.available)
    func aCopyThereAndBackKeepsIDsVersionsAndTheSequence(_ backend: Backend) async throws {
        try await backend.withStore { store in
            let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
            var kept: [Item.ID] = []
            for title in ["one", "two", "three"] {
                kept.append(try await store.items.insert(NewItem(userID: ann, title: title, notes: "n \(title) ✓")))
            }
            try await store.items.delete(id: kept.removeLast())
            var first = try #require(try await store.items.item(id: kept[0]))
            first.title = "one, edited"
            _ = try await store.items.update(first)
            let middle = try Store.temporary()
            let there = try await store.copy(to: middle)
            #expect(there.matches)
            #expect(there.source.counts.map(\.rows) == [1, 2, 0, 0])
            try await backend.withStore { back in
                let report = try await middle.copy(to: back)
                #expect(report.matches && report.source.fingerprint == there.source.fingerprint)
                #expect(try await back.items.item(id: kept[0])?.version == 2)
                let next = try await back.items.insert(NewItem(userID: ann, title: "four"))
                #expect(next.rawValue > kept[1].rawValue + 1, "the deleted item's ID is not handed out again")
            }
        }
    }

    /// Sha-256 of the standard test messages (FIPS 180-2 appendix B).
    @Test func theFingerprintHashIsSHA256() {
        var empty = SHA256()
        #expect(empty.finalize().hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        var abc = SHA256()
        abc.update(Array("abc".utf8))
        #expect(abc.finalize().hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        var long = SHA256()
        for byte in "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8 { long.update([byte]) }
        #expect(long.finalize().hex == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }
}

/// Runs `body` on a thread of its own (the copy protocol blocks).
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

extension [UInt8] {
    var hex: String { map { String(format: "%02x", $0) }.joined() }
}
