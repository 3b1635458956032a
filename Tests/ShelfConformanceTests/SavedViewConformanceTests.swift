import Foundation
import ShelfReactive
import ShelfSQLiteBackend
import ShelfStore
import Testing

/// Saved views on every backend: names unique with letter case ignored, saving over a name,
/// optimistic concurrency, rename and delete, refused names, a sort field from a newer shelf,
/// and the live list.
@Suite("Conformance: saved views")
struct SavedViewConformanceTests {
    /// A name is limited in what the user sees: 60 hearts ("❤️", two code points each) and 100
    /// flags are saved on both backends and come back as typed (the databases' checks allowed
    /// 100 code points, refusing them).
    @Test(arguments: Backend.available)
    func namesOfEmojiAreCountedAsTheyShow(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let hearts = String(repeating: "\u{2764}\u{FE0F}", count: 60)
            let flags = String(repeating: "\u{1F1F5}\u{1F1F9}", count: 100)
            for name in [hearts, flags] {
                let saved = try await store.views.save(NewSavedView(name: name, queryText: ""))
                #expect(saved.name == name)
                #expect(try await store.views.views().contains { $0.name == name })
            }
        }
    }

    @Test(arguments: Backend.available)
    func savedViewsAreFoundByAnyCaseAndListedByName(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            #expect(try await store.views.views().isEmpty)
            let saved = try await store.views.save(
                NewSavedView(name: "  Urgent  ", queryText: "prio:>=2 moth", sortField: .priority))
            #expect(saved.name == "Urgent", "the name is stored trimmed")
            #expect(saved.queryText == "prio:>=2 moth")
            #expect(saved.sortField == .priority && saved.sortDirection == .descending)
            #expect(saved.version == 1 && saved.owner == nil)
            #expect(try await store.views.view(named: "URGENT") == saved)
            #expect(try await store.views.view(named: " urgent ") == saved)
            #expect(try await store.views.view(named: "urgent!") == nil)

            for name in ["beta", "Alpha", "ÉTÉ", "zulu"] {
                try await store.views.save(NewSavedView(name: name, queryText: name))
            }
            // Case-folded in every script: "été" finds "ÉTÉ".
            #expect(try await store.views.view(named: "été")?.name == "ÉTÉ")
            // By the case-folded name, byte by byte: the same order on every backend.
            #expect(try await store.views.views().map(\.name) == ["Alpha", "beta", "Urgent", "zulu", "ÉTÉ"])
        }
    }

    @Test(arguments: Backend.available)
    func savingUnderAnExistingNameReplacesThatView(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let first = try await store.views.save(NewSavedView(name: "Inbox", queryText: "old"))
            let second = try await store.views.save(
                NewSavedView(name: "INBOX", queryText: "new", sortField: .title, sortDirection: .ascending))
            #expect(second.id == first.id, "the same view, kept")
            #expect(second.createdAt == first.createdAt)
            #expect(second.updatedAt >= first.updatedAt)
            #expect(second.version == 2)
            #expect(second.name == "INBOX", "the name's new spelling")
            #expect(second.queryText == "new" && second.sortField == .title && second.sortDirection == .ascending)
            #expect(try await store.views.views() == [second])
        }
    }

    @Test(arguments: Backend.available)
    func savingOverAVersionRefusesAViewChangedMeanwhile(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let seen = try await store.views.save(NewSavedView(name: "Mine", queryText: "a"))
            let theirs = try await store.views.save(NewSavedView(name: "mine", queryText: "theirs"))
            let stale = await #expect(throws: StoreError.self) {
                try await store.views.save(
                    NewSavedView(name: "Mine", queryText: "mine"), replacingVersion: seen.version)
            }
            #expect(stale?.code == .conflict)
            #expect(stale?.message.contains("version 1") == true && stale?.message.contains("version 2") == true)
            #expect(try await store.views.view(named: "mine") == theirs, "nothing written")

            let replaced = try await store.views.save(
                NewSavedView(name: "Mine", queryText: "mine"), replacingVersion: theirs.version)
            #expect(replaced.version == 3 && replaced.queryText == "mine")

            let missing = await #expect(throws: StoreError.self) {
                try await store.views.save(NewSavedView(name: "Gone", queryText: ""), replacingVersion: 1)
            }
            #expect(missing?.code == .notFound)
            #expect(try await store.views.view(named: "Gone") == nil)
        }
    }

    @Test(arguments: Backend.available)
    func renameAndDelete(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let first = try await store.views.save(NewSavedView(name: "One", queryText: "1"))
            try await store.views.save(NewSavedView(name: "Two", queryText: "2"))

            let renamed = try await store.views.rename("one", to: " Uno ")
            #expect(renamed.id == first.id && renamed.name == "Uno" && renamed.version == 2)
            #expect(renamed.queryText == "1" && renamed.createdAt == first.createdAt)
            #expect(try await store.views.view(named: "One") == nil)

            let recased = try await store.views.rename("uno", to: "UNO")
            #expect(recased.name == "UNO" && recased.version == 3, "a change of letter case alone is a rename")

            let taken = await #expect(throws: StoreError.self) { try await store.views.rename("UNO", to: "two") }
            #expect(taken?.code == .invalidValue)
            #expect(taken?.message.contains("“Two” already exists") == true)
            let unknown = await #expect(throws: StoreError.self) { try await store.views.rename("three", to: "four") }
            #expect(unknown?.code == .notFound)
            #expect(try await store.views.views().map(\.name) == ["Two", "UNO"], "nothing changed by the refusals")

            try await store.views.delete(named: "two")
            #expect(try await store.views.views().map(\.name) == ["UNO"])
            let gone = await #expect(throws: StoreError.self) { try await store.views.delete(named: "Two") }
            #expect(gone?.code == .notFound)
            #expect(gone?.message.contains("shelf views list") == true)
        }
    }

    @Test(arguments: Backend.available)
    func refusedNamesAndSortFieldsWriteNothing(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let refused: [(NewSavedView, String)] = [
                (NewSavedView(name: "", queryText: "x"), "must not be empty"),
                (NewSavedView(name: " \t\n", queryText: "x"), "must not be empty"),
                (NewSavedView(name: String(repeating: "é", count: 101), queryText: "x"), "at most 100 characters"),
                (NewSavedView(name: "bell\u{7}", queryText: "x"), "U+0007 at character 5"),
                (NewSavedView(name: "in\u{202E}verse", queryText: "x"), "U+202E"),
                (
                    NewSavedView(name: "Fine", queryText: "x", sortFieldName: "Bad Field", sortDirection: .ascending),
                    "cannot sort by"
                ),
                (
                    NewSavedView(name: "Fine", queryText: "x", sortFieldName: "", sortDirection: .ascending),
                    "cannot sort by"
                ),
                // The CLI refused this query and the browser saved it: one check for all.
                (
                    NewSavedView(name: "Fine", queryText: #"prio:>=2 "unclosed"#),
                    "a saved view's query must be one the search understands: column 10:"
                ),
                (NewSavedView(name: "Fine", queryText: "prio:9"), "column 1: prio:"),
            ]
            for (view, reason) in refused {
                let error = await #expect(throws: StoreError.self) { try await store.views.save(view) }
                #expect(error?.code == .invalidValue)
                #expect(error?.message.contains(reason) == true, "\(error?.message ?? "no error") for \(view.name)")
            }
            #expect(try await store.views.views().isEmpty)
            let longest = String(repeating: "é", count: 100)
            #expect(try await store.views.save(NewSavedView(name: longest, queryText: "")).name == longest)
            // A query text the search understands is stored exactly as typed, whatever it holds.
            let text = "status:done  prio:>=2 @ada \"quoted ' ; DROP TABLE items; --\"  "
            #expect(try await store.views.save(NewSavedView(name: "Odd", queryText: text)).queryText == text)
            #expect(try await store.views.view(named: "odd")?.queryText == text)
        }
    }

    /// A view saved by a newer shelf that sorts by a field this one does not know reads back
    /// with the field's name, and falls back to newest first with a note saying so.
    @Test(arguments: Backend.available)
    func aSortFieldFromANewerShelfFallsBackToTheDefaultOrder(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            try await store.views.save(
                NewSavedView(name: "By owner", queryText: "moth", sortFieldName: "relevance", sortDirection: .ascending)
            )
            let view = try #require(try await store.views.view(named: "by owner"))
            #expect(view.sortFieldName == "relevance")
            #expect(view.sortField == nil)
            #expect(view.itemQuery == ItemQuery(text: "moth", sortField: .created, sortDirection: .descending))
            let note = try #require(view.fallbackSortNote)
            #expect(note.contains("“relevance”") && note.contains("newest first"))
            #expect(try await store.views.views().map(\.sortFieldName) == ["relevance"])
        }
    }

    @Test(arguments: Backend.available)
    func aViewOfOneOwnerLosesItsOwnerWhenTheUserGoes(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let ada = try await store.users.insert(NewUser(name: "Ada", email: "ada@example.com"))
            let saved = try await store.views.save(NewSavedView(name: "Ada's", queryText: "", owner: ada))
            #expect(saved.owner == ada)
            #expect(saved.itemQuery.owner == ada)
            let unknown = await #expect(throws: StoreError.self) {
                try await store.views.save(NewSavedView(name: "Nobody's", queryText: "", owner: User.ID(999_999)))
            }
            #expect(unknown?.code == .unknownUser)
            try await store.users.delete(id: ada)
            #expect(try await store.views.view(named: "ada's")?.owner == nil)
        }
    }

    /// The live list sees saves, renames and deletes, and re-runs only for commits to saved
    /// views (each step ends with a commit it reads, as in the live conformance tests).
    @Test(arguments: Backend.available)
    func theLiveListFollowsCommitsToSavedViewsOnly(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let live = try await store.liveSavedViews()
            #expect(live.value.success == [])
            let saved = try await store.views.save(NewSavedView(name: "First", queryText: "a"))
            #expect(await eventually { live.value.success == [saved] })

            let before = store.liveQueryRuns
            let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
            try await store.items.insert(NewItem(userID: ann, title: "Unrelated"))
            let second = try await store.views.save(NewSavedView(name: "Second", queryText: "b"))
            #expect(await eventually { live.value.success?.map(\.name) == ["First", "Second"] })
            #expect(store.liveQueryRuns - before == 1, "no run for commits to users or items")
            #expect(second.version == 1)

            try await store.views.rename("first", to: "Zeroth")
            #expect(await eventually { live.value.success?.map(\.name) == ["Second", "Zeroth"] })
            try await store.views.delete(named: "second")
            #expect(await eventually { live.value.success?.map(\.name) == ["Zeroth"] })
        }
    }

    /// `backup(to:)` keeps saved views: IDs, names, query texts, sorts (an unknown field
    /// too), owners, times and versions, in a SQLite file that opens as a store.
    @Test(arguments: Backend.available)
    func backupsKeepSavedViews(_ backend: Backend) async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "views-backup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appending(path: "backup.sqlite").path
        let views = try await backend.withStore { (store: Store) async throws -> [SavedView] in
            let ada = try await store.users.insert(NewUser(name: "Ada", email: "ada@example.com"))
            try await store.views.save(NewSavedView(name: "Ada's", queryText: "moth", owner: ada))
            try await store.views.save(
                NewSavedView(name: "Later", queryText: "", sortFieldName: "owner", sortDirection: .ascending))
            try await store.views.save(
                NewSavedView(name: "later", queryText: "again", sortFieldName: "owner", sortDirection: .ascending))
            try await store.backup(to: path)
            return try await store.views.views()
        }
        #expect(views.count == 2 && views[1].version == 2)
        let copy = try Store(path: path)
        #expect(try await copy.views.views() == views)
        // The copy's name rule still holds: a save under a known name replaces that view.
        let replaced = try await copy.views.save(NewSavedView(name: "ADA'S", queryText: "new"))
        #expect(replaced.id == views[0].id && replaced.version == 2)
    }
}
