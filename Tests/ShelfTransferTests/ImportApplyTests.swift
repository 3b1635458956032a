import Foundation
import ShelfStore
import Synchronization
import Testing

@testable import ShelfTransfer

/// The set-based apply (a few statements for the whole input) gives what writing the rows
/// one by one in input order gives, and hands the cases it cannot decide to the row-by-row
/// path.
@Suite struct ImportApplyTests {
    let scratch: Scratch
    let store: Store

    init() async throws {
        scratch = try Scratch()
        store = try await makeStore()
    }

    private func items(_ text: String, _ options: ImportOptions) async throws -> ImportSummary {
        try await Importer(store: store).importItems(
            from: .file(try scratch.file("i-\(UUID().uuidString).csv", text)), options: options)
    }

    private func titles() async throws -> [String] {
        try await store.items.items(matching: ItemQuery(sortField: .title, sortDirection: .ascending)).map(\.title)
    }

    @Test func progressSaysWhenTheWritingBegins() async throws {
        let events = Mutex<[ImportProgress]>([])
        let path = try scratch.file("p.csv", "title,user\nA,ann@example.com\nB,bob@example.com\n")
        _ = try await Importer(store: store).importItems(from: .file(path)) { progress in
            events.withLock { $0.append(progress) }
        }
        let seen = events.withLock { $0 }
        #expect(seen.map(\.isWriting) == [true, false])
        #expect(seen.map(\.rows) == [2, 2])
    }

    @Test func aRowWithoutIDThenTheIDItGetsUpdatesTheFirst() async throws {
        // In input order: the first row becomes item 1, the second updates it.
        let summary = try await items(
            "id,title,user\n,First,ann@example.com\n1,Second,ann@example.com\n", ImportOptions(mode: .upsert))
        #expect(summary.inserted == 1 && summary.updated == 1)
        #expect(try await titles() == ["Second"])
    }

    @Test func anIDTwiceInTheInputUpdatesInOrder() async throws {
        let summary = try await items(
            "id,title,user\n5,A,ann@example.com\n5,B,bob@example.com\n5,B,bob@example.com\n",
            ImportOptions(mode: .upsert))
        #expect(summary.inserted == 1 && summary.updated == 1 && summary.unchanged == 1)
        #expect(try await titles() == ["B"])
    }

    @Test func upsertCountsMatchRowByRow() async throws {
        _ = try await items(
            "id,title,user\n1,One,ann@example.com\n2,Two,ann@example.com\n3,Three,ann@example.com\n",
            ImportOptions())
        let summary = try await items(
            "id,title,user\n1,One,ann@example.com\n2,TWO,ann@example.com\n,New,bob@example.com\n9,Nine,bob@example.com\n",
            ImportOptions(mode: .replace))
        #expect(summary.unchanged == 1 && summary.updated == 1 && summary.inserted == 2 && summary.deleted == 1)
        #expect(try await titles() == ["New", "Nine", "One", "TWO"])
        let two = try #require(try await store.items.item(id: Item.ID(2)))
        #expect(two.version == 2)
        let one = try #require(try await store.items.item(id: Item.ID(1)))
        #expect(one.version == 1)
    }

    @Test func anUnknownOwnerIsNamedAndTheOtherRowsWritten() async throws {
        let summary = try await items(
            "id,title,user\n1,A,ann@example.com\n2,B,nobody@example.com\n3,C,bob@example.com\n",
            ImportOptions(mode: .upsert, skipInvalid: true))
        #expect(summary.inserted == 2 && summary.skipped == 1)
        #expect(summary.problems.map { $0.position?.description } == ["3:5"])
        #expect(summary.problems.first?.field == "user")
        #expect(try await titles() == ["A", "C"])
    }

    @Test func replacingUsersMatchesEmailsWhateverTheirCase() async throws {
        let path = try scratch.file("u.csv", "name,email\nAnn,ANN@example.com\nCid,cid@example.com\n")
        let summary = try await Importer(store: store).importUsers(
            from: .file(path), options: ImportOptions(mode: .replace))
        #expect(summary.updated == 1 && summary.inserted == 1 && summary.deleted == 1)
        #expect(try await store.users.users().map(\.email).sorted() == ["ANN@example.com", "cid@example.com"])
    }

    @Test func aUserWhoseIDAndEmailDisagreeIsNamed() async throws {
        let ann = try #require(try await store.users.user(email: "ann@example.com"))
        let path = try scratch.file(
            "u.csv", "id,name,email\n\(ann.id.rawValue + 100),Ann,ann@example.com\n,Cid,cid@example.com\n")
        let summary = try await Importer(store: store).importUsers(
            from: .file(path), options: ImportOptions(mode: .upsert, skipInvalid: true))
        #expect(summary.inserted == 1 && summary.skipped == 1)
        #expect(summary.problems.first?.field == "id" && summary.problems.first?.position?.line == 2)
    }

    @Test func aDuplicateEmailInTheInputIsNamed() async throws {
        let path = try scratch.file("u.csv", "name,email\nCid,cid@example.com\nCid again,CID@example.com\n")
        let summary = try await Importer(store: store).importUsers(
            from: .file(path), options: ImportOptions(skipInvalid: true))
        #expect(summary.inserted == 1 && summary.skipped == 1)
        #expect(summary.problems.map { $0.position?.description } == ["3:11"])
        let upserted = try await Importer(store: store).importUsers(
            from: .file(path), options: ImportOptions(mode: .upsert))
        #expect(upserted.updated == 1 && upserted.unchanged == 1)
        #expect(try await store.users.user(email: "cid@example.com")?.name == "Cid again")
    }
}
