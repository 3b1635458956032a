import Foundation
import ShelfPresentation
import ShelfStore
import ShelfTerminal
import ShelfTerminalTesting
import Testing

@testable import ShelfBrowser

/// The saved-views picker (`v`) and the save prompt (`V`), headless.
@MainActor
@Suite("Saved view screens")
struct SavedViewScreenTests {
    @Test func pickerListsViewsLiveOpensAndDeletesAfterAsking() async throws {
        let (store, _) = try await makeStore(items: 5)
        try await store.views.save(
            NewSavedView(name: "Fours", queryText: "4", sortField: .title, sortDirection: .ascending))
        try await store.views.save(
            NewSavedView(name: "Later", queryText: "", sortFieldName: "relevance", sortDirection: .ascending))
        let screen = browser(store, width: 70, height: 14)
        #expect(await screen.waitUntil { $0.contains("Item 5") })
        screen.type("v")
        #expect(await screen.waitUntil { $0.contains("Fours") })
        #expect(
            screen.text.components(separatedBy: "\n").filter { $0.contains("│") }.joined(separator: "\n") == """
                │Name                  Sort                     Query                │
                │Fours                 title A–Z                “4”                  │
                │Later                 relevance (unknown)      all items            │
                │                                                                    │
                │                                                                    │
                │                                                                    │
                │                                                                    │
                │                                                                    │
                │                                                                    │
                │                                                                    │
                │                                                                    │
                │Enter open · d delete · Esc close                                   │
                """)

        // Live: a view saved elsewhere meanwhile shows up.
        try await store.views.save(NewSavedView(name: "Dones", queryText: "5"))
        #expect(await screen.waitUntil { $0.contains("Dones") })

        // d asks about the selected view first (k moves up to Dones); n keeps it.
        screen.type("k")
        screen.type("d")
        #expect(await screen.waitUntil { $0.contains("Delete “Dones”? y / Enter: delete") })
        screen.type("n")
        #expect(await screen.waitUntil { $0.contains("Enter open · d delete") })
        #expect(try await store.views.view(named: "Dones") != nil)
        // d, then y deletes.
        screen.type("dy")
        #expect(await screen.waitUntil { !$0.contains("Dones") })
        #expect(try await store.views.view(named: "Dones") == nil)

        // Enter opens the selected view: Fours (the neighbour that took the deleted row's place).
        screen.send(KeyEvent(.enter))
        #expect(await screen.waitUntil { $0.contains("view “Fours” · 1/1 · 1 item") })
        #expect(!screen.text.contains("Saved views"))
        #expect(screen.text.contains("Item 4") && !screen.text.contains("Item 5"))

        // Any change of the query drops the view's name from the status bar.
        screen.type("f")
        #expect(await screen.waitUntil { !$0.contains("view “Fours”") })
    }

    @Test func aViewSortedByAnUnknownFieldOpensNewestFirstAndSaysSo() async throws {
        let (store, _) = try await makeStore(items: 3)
        let later = try await store.views.save(
            NewSavedView(name: "Later", queryText: "", sortFieldName: "relevance", sortDirection: .ascending))
        let screen = HeadlessScreen(
            rootController: BrowserController(
                viewModel: BrowserViewModel(store: store, now: clock, initialView: later)),
            size: Size(width: 120, height: 8))
        #expect(await screen.waitUntil { $0.contains("Item 3") })
        #expect(screen.text.contains("view “Later” sorts by “relevance”, which this shelf does not know"))
        let lines = screen.text.components(separatedBy: "\n")
        let three = try #require(lines.firstIndex { $0.contains("Item 3") })
        let one = try #require(lines.firstIndex { $0.contains("Item 1") })
        #expect(three < one, "newest first")
    }

    @Test func saveAsksBeforeReplacingAndBecomesTheOpenView() async throws {
        let (store, _) = try await makeStore(items: 5)
        try await store.views.save(NewSavedView(name: "Twos", queryText: "old"))
        let screen = browser(store, width: 70, height: 14)
        #expect(await screen.waitUntil { $0.contains("Item 5") })
        screen.type("/2")
        screen.send(KeyEvent(.enter))
        #expect(await screen.waitUntil { $0.contains("1 item ·") })

        // An empty name is refused at once.
        screen.type("V")
        #expect(await screen.waitUntil { $0.contains("Save view") })
        screen.send(KeyEvent(.enter))
        #expect(await screen.waitUntil { $0.contains("must not be empty") })

        // An existing name (any case) asks first; n goes back to the name.
        screen.type("twos")
        screen.send(KeyEvent(.enter))
        #expect(await screen.waitUntil { $0.contains("A view named “Twos” exists. Replace it?") })
        screen.type("n")
        #expect(await screen.waitUntil { !$0.contains("Replace it?") })
        #expect(try await store.views.view(named: "twos")?.queryText == "old")
        screen.send(KeyEvent(.enter))
        #expect(await screen.waitUntil { $0.contains("Replace it?") })
        screen.type("y")
        #expect(await screen.waitUntil { $0.contains("view “twos” · 1/1 · 1 item") })
        #expect(!screen.text.contains("Save view"))
        let saved = try #require(try await store.views.view(named: "Twos"))
        #expect(saved.queryText == "2" && saved.version == 2 && saved.name == "twos")

        // V again is prefilled with the open view's name.
        screen.type("V")
        #expect(await screen.waitUntil { $0.contains("Name  twos") })
        screen.send(KeyEvent(.escape))
        #expect(await screen.waitUntil { !$0.contains("Save view") })
    }

    /// A pasted 105-character name is kept whole and refused, saying how long it is (it was
    /// cut to 100 and saved); a search the CLI refuses is refused here too, by the same check.
    @Test func saveRefusesWhatTheCLIRefusesWithoutCuttingTheName() async throws {
        let (store, _) = try await makeStore(items: 3)
        let screen = browser(store, width: 120, height: 14)
        #expect(await screen.waitUntil { $0.contains("Item 3") })
        screen.type("V")
        #expect(await screen.waitUntil { $0.contains("Save view") })
        screen.send(.paste(String(repeating: "n", count: 105)))
        screen.send(KeyEvent(.enter))
        // The message wraps in the dialog: "… (this one" / "has 105); shorten it".
        #expect(
            await screen.waitUntil { $0.contains("at most 100 characters (this one") && $0.contains("has 105)") },
            "\(screen.text)")
        #expect(try await store.views.views().isEmpty, "nothing saved")
        screen.send(KeyEvent(.escape))
        #expect(await screen.waitUntil { !$0.contains("Save view") })

        screen.type("/")
        screen.send(.paste(#"prio:>=2 "unclosed"#))
        screen.send(KeyEvent(.enter))
        screen.type("V")
        #expect(await screen.waitUntil { $0.contains("Save view") })
        screen.type("Unclosed")
        screen.send(KeyEvent(.enter))
        #expect(await screen.waitUntil { $0.contains("query must be one the search understands") }, "\(screen.text)")
        #expect(try await store.views.views().isEmpty, "nothing saved")
    }

    @Test func replacingAViewChangedMeanwhileSaysSoAndWritesNothing() async throws {
        let (store, _) = try await makeStore(items: 2)
        try await store.views.save(NewSavedView(name: "Mine", queryText: "old"))
        let screen = browser(store, width: 90, height: 14)
        #expect(await screen.waitUntil { $0.contains("Item 2") })
        screen.type("V")
        #expect(await screen.waitUntil { $0.contains("Save view") })
        screen.type("Mine")
        screen.send(KeyEvent(.enter))
        #expect(await screen.waitUntil { $0.contains("Replace it?") })
        try await store.views.save(NewSavedView(name: "Mine", queryText: "theirs"))
        screen.type("y")
        #expect(await screen.waitUntil { $0.contains("was changed elsewhere") })
        #expect(try await store.views.view(named: "mine")?.queryText == "theirs")
    }
}
