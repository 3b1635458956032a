import Foundation
import ShelfReactive
import ShelfSQLiteBackend
import ShelfStore
import Testing

/// `Store.copy(to:options:)` into a store on every backend, which loads its rows in bulk (no
/// per-row triggers): the target's live queries still see the copy (a whole list and a word
/// search), its search index covers every copied item, and its next ID follows the copied ones.
@Suite("Conformance: copy into a store that has live queries")
struct CopyLiveConformanceTests {
    @Test(arguments: Backend.available)
    func aReplacingCopyReachesTheTargetsLiveQueriesAndSearch(_ backend: Backend) async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "copy-conformance-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = try Store(path: folder.appending(path: "source.sqlite").path)
        let ann = try await source.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
        var copied: [Item.ID] = []
        for title in ["Moth trap", "Zürich notes", "Third", "Fourth", "Fifth"] {
            copied.append(try await source.items.insert(NewItem(userID: ann, title: title, notes: "copied \(title)")))
        }
        try await backend.withStore { (store: Store) async throws in
            let cy = try await store.users.insert(NewUser(name: "Cy", email: "cy@example.com"))
            _ = try await store.items.insert(NewItem(userID: cy, title: "Kept until the copy"))
            let all = try await store.liveItems(matching: ItemQuery(), limit: 10)
            let moths = try await store.liveItems(matching: ItemQuery(text: "moth"), limit: 10)
            #expect(await eventually { all.value.success?.totalCount == 1 })
            #expect(await eventually { moths.value.success?.totalCount == 0 })

            let report = try await source.copy(to: store, options: CopyOptions(replace: true))
            #expect(report.matches)
            #expect(await eventually { all.value.success?.totalCount == 5 }, "the whole list saw the copy")
            #expect(await eventually { moths.value.success?.items.map(\.id) == [copied[0]] }, "the search saw it")
            // Words of every copied item are found, accents folded.
            let found = try await store.items.items(matching: ItemQuery(text: "zurich"), limit: 10)
            #expect(found.map(\.id) == [copied[1]])
            let added = try await store.items.insert(NewItem(userID: ann, title: "After the copy"))
            #expect(added.rawValue > (copied.last?.rawValue ?? 0))
        }
        await source.close()
    }
}
