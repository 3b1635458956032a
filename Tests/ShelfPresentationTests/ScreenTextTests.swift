import Foundation
import ShelfReactive
import ShelfStore
import ShelfTestSupport
import Testing

@testable import ShelfPresentation

/// The words the browser's screens show, as values: the controllers only lay them out.
@MainActor
@Suite("Screen text")
struct ScreenTextTests {
    func content(
        rows: Int = 3, total: Int? = 340, offset: Int? = 10, selected: Int? = 1, description: String = "newest first",
        refreshing: Bool = false, message: String? = nil, newAbove: Int = 0
    ) -> ItemListContent {
        let rows = (0..<rows).map { n in
            ItemRowViewModel(
                id: Item.ID(Int64(n + 1)), title: "Item \(n)", doneMark: " ", priorityMark: "", owner: "Ada",
                updated: "now", isDone: false, priority: 0)
        }
        return ItemListContent(
            rows: rows, totalCount: total, windowOffset: offset, selectedID: selected.map { rows[$0].id },
            selectedIndex: selected, newAboveCount: newAbove, queryDescription: description, isRefreshing: refreshing,
            message: message)
    }

    @Test func theStatusBarSaysWhereTheSelectionIsAndWhatShows() {
        func status(
            _ state: ViewState<ItemListContent>, view: String? = nil, note: String? = nil, marks: Int = 0,
            action: String? = nil
        ) -> String {
            BrowserViewModel.statusText(
                list: state, openViewName: view, openViewNote: note, markCount: marks, actionMessage: action)
        }
        #expect(status(.loading) == "Loading…")
        #expect(status(.idle) == "Loading…")
        #expect(status(.loaded(content())) == "12/340 · 340 items · newest first")
        #expect(status(.loaded(content(total: nil))) == "… items · newest first", "the count is pending")
        #expect(status(.loaded(content(offset: nil))) == "340 items · newest first", "the position is unknown")
        #expect(status(.loaded(content(refreshing: true))) == "12/340 · 340 items · newest first …")
        #expect(status(.loaded(content(message: "Could not count"))) == "Could not count")
        #expect(
            status(.loaded(content()), view: "Mine") == "view “Mine” · 12/340 · 340 items · newest first")
        #expect(status(.loaded(content()), view: "Mine", note: "sort unknown") == "sort unknown")
        #expect(status(.empty("No items yet.")) == "No items yet.")
        #expect(
            status(.failed(Failure("Could not read the items: busy", underlying: CancellationError())))
                == "Could not read the items: busy")
        #expect(
            status(.loaded(content()), marks: 1_200, action: "marked")
                == "marked · 1,200 marked · 12/340 · 340 items · newest first")
        #expect(BrowserViewModel.statusHints == "? help  n new  q quit ")
    }

    @Test func theBrowsersStatusFollowsTheListMarksAndActions() async throws {
        let (store, _) = try await makeStore(items: 5)
        let browser = BrowserViewModel(store: store)
        #expect(browser.statusText == "Loading…")
        await browser.list.load().finished()
        #expect(browser.statusText == "1/5 · 5 items · newest first")
        let id = try #require(browser.list.selectedItemID)
        browser.actions.toggleMark(id: id)
        await browser.actions.enqueue { await browser.actions.toggleDone(selected: nil) }.finished()
        #expect(browser.statusText.hasPrefix("marked 1 item done · 1 marked · 1/5 · 5 items"))
    }

    @Test func theListSaysWhatItsQueryCouldNotUnderstandAndWhatItHighlights() async throws {
        let (store, _) = try await makeStore(items: 3)
        let list = ItemListViewModel(store: store)
        await list.load().finished()
        #expect(list.queryProblem == nil)
        #expect(list.highlightTerms.isEmpty)
        await list.search("moth colour:red").finished()
        let problems = ItemQueryText("moth colour:red").problems
        #expect(!problems.isEmpty)
        #expect(list.queryProblem == ItemListViewModel.problemLine(problems.map { "\($0)" }))
        #expect(list.queryProblem?.hasSuffix("; the rest still filters") == true)
        #expect(list.highlightTerms == ItemQueryText("moth colour:red").highlightTerms)
        #expect(list.highlightTerms.contains("moth"))
        #expect(
            ItemListViewModel.problemLine(["a", "b", "c"]) == "⚠ a\n⚠ b\n⚠ c; the rest still filters")
        #expect(
            ItemListViewModel.problemLine(["a", "b", "c", "d"]) == "⚠ a\n⚠ b\n⚠ … and 2 more; the rest still filters")
        #expect(ItemListViewModel.problemLine([]) == nil)
    }

    @Test func theListsHintsAndBadge() {
        let failed = ViewState<ItemListContent>.failed(Failure("x", underlying: CancellationError()))
        #expect(ItemListViewModel.hint(for: failed, hasFilters: false, demoCommand: nil) == "Press r to try again.")
        #expect(
            ItemListViewModel.hint(for: .empty("No items yet."), hasFilters: false, demoCommand: nil)
                == "Press n to add an item, or fill a demo: shelf demo --items 1000")
        #expect(
            ItemListViewModel.hint(for: .empty("none"), hasFilters: false, demoCommand: "shelf demo --db /tmp/a")
                == "Press n to add an item, or fill a demo: shelf demo --db /tmp/a --items 1000")
        #expect(
            ItemListViewModel.hint(for: .empty("none"), hasFilters: true, demoCommand: nil)
                == "Press Esc to clear the search and filters.")
        #expect(ItemListViewModel.hint(for: .loaded(content()), hasFilters: false, demoCommand: nil) == nil)
        #expect(content(newAbove: 1_234).newAboveBadge == "↑ 1,234 new · g")
        #expect(ItemListSorting.arrow(.ascending) == "▲" && ItemListSorting.arrow(.descending) == "▼")
        #expect(ItemListSorting.defaultDirection(for: .owner) == .ascending)
        #expect(ItemListSorting.defaultDirection(for: .priority) == .descending)
        #expect(content().newAboveBadge == nil)
    }

    @Test func theDetailPaneSaysTheFields() {
        let item = Item(
            id: Item.ID(7), userID: User.ID(1), title: "Moths", notes: nil, status: .done, priority: 3,
            createdAt: fixedDate, updatedAt: fixedDate, version: 1)
        let owner = User(id: User.ID(1), name: "Ada", email: "ada@x.io", createdAt: fixedDate)
        let content = ItemDetailContent(item: item, owner: owner)
        #expect(content.heading == "Item #7")
        #expect(
            content.fieldLines == [
                "Status    done", "Priority  high (3)", "Owner     Ada <ada@x.io>",
                "Created   \(content.created)", "Updated   \(content.updated)",
            ])
        #expect(content.notesText == "No notes.")
        #expect(!content.hasNotes)
        #expect(ItemDetailContent(item: item, owner: nil).fieldLines[2] == "Owner     unknown owner")
    }

    @Test func theEditorSaysWhereSavingStandsAndWhichKeysAct() {
        func editor(_ phase: ItemEditorContent.Phase, newOwner: NewOwner? = nil, problem: String? = nil)
            -> ItemEditorContent
        {
            ItemEditorContent(
                mode: .edit(Item.ID(4)), values: [:], errors: [:], phase: phase, newOwner: newOwner,
                suggestionsProblem: problem)
        }
        #expect(editor(.editing).title == "Edit item #4")
        #expect(ItemEditorContent(mode: .create, values: [:], errors: [:], phase: .editing).title == "New item")
        #expect(editor(.editing).phaseLine == .init("", isError: false))
        #expect(editor(.saving).phaseLine == .init("Saving…", isError: false))
        #expect(editor(.saved(Item.ID(4))).phaseLine == .init("Saved.", isError: false))
        #expect(editor(.failed("Could not save: busy")).phaseLine == .init("Could not save: busy", isError: true))
        #expect(
            editor(.editing, problem: "No suggestions").phaseLine == .init("No suggestions", isError: true))
        let proposal = NewOwner(email: "bo@x.io", name: "Bo", command: "shelf users add --db a.db")
        #expect(
            editor(.editing, newOwner: proposal).phaseLine
                == .init(
                    "No user has the email bo@x.io. Add them with this name and save the item? "
                        + "(From a shell: shelf users add --db a.db.)", isError: false))
        #expect(editor(.editing, newOwner: proposal).hint(focused: .title, suggesting: false).hasPrefix("Enter add"))
        #expect(editor(.editing).hint(focused: .notes, suggesting: false).hasPrefix("Enter new line"))
        #expect(editor(.editing).hint(focused: .owner, suggesting: true).hasPrefix("↑/↓ choose"))
        // Hostile round 13: the notes' hint was 78 columns in a dialog 70 wide, cut to "· E…"
        // where its way out was. Every hint fits the dialog; narrower, saving and the way out
        // stay.
        let theirs = Item(
            id: Item.ID(4), userID: User.ID(1), title: "Theirs", notes: nil, status: .open, priority: 0,
            createdAt: fixedDate, updatedAt: fixedDate, version: 2)
        let conflict = editor(.conflict(theirs: theirs))
        for content in [editor(.editing), editor(.editing, newOwner: proposal), conflict] {
            for field in ItemEditorField.allCases {
                for suggesting in [false, true] {
                    let hints = content.hints(focused: field, suggesting: suggesting)
                    let whole = KeyHint.line(hints)
                    #expect(whole.count <= 70, "\(whole)")
                    let narrow = KeyHint.line(hints, width: 40)
                    for hint in hints where hint.rank == 1 { #expect(narrow.contains(hint.text), "\(narrow)") }
                }
            }
        }
        #expect(
            KeyHint.line(editor(.editing).hints(focused: .notes, suggesting: false), width: 40)
                == "Ctrl-S save · Tab next · Esc cancel")
        let owner = User(id: User.ID(1), name: "Ada", email: "ada@x.io", createdAt: fixedDate)
        #expect(ItemEditorContent.suggestionLine(owner) == "Ada <ada@x.io>")
    }

    @Test func promptsAndFormsSayTheirPhases() {
        let view = SavedView(
            id: SavedView.ID(1), name: "Mine", queryText: "moth", sortFieldName: "created", sortDirection: .descending,
            owner: nil, createdAt: fixedDate, updatedAt: fixedDate, version: 1)
        #expect(SaveViewPromptContent(name: "Mine", phase: .saved(view)).phaseText == "Saved “Mine”.")
        let replacing = SaveViewPromptContent(name: "Mine", phase: .confirmingReplace(view))
        #expect(replacing.phaseText == "A view named “Mine” exists. Replace it?")
        #expect(replacing.hint() == "y / Enter: replace    n / Esc: change the name")
        #expect(SaveViewPromptContent(name: "", phase: .failed("No name")).isFailure)
        #expect(UserEditorContent(mode: .create, values: [:], errors: [:], phase: .saving).phaseText == "Saving…")
        #expect(
            UserEditorContent(mode: .edit(User.ID(2)), values: [:], errors: [:], phase: .editing).title == "Edit user")
        #expect(
            UserListViewModel.messageText(state: .empty("No users yet."), message: nil, demoCommand: "shelf demo")
                == "No users yet. Press a to add one, or fill a demo: shelf demo.")
        #expect(UserListViewModel.messageText(state: .loading, message: nil, demoCommand: nil) == "Loading users…")
        #expect(
            ConfirmViewModel(title: "t", message: "m", confirmLabel: "delete").choices
                == "y / Enter: delete    n / Esc: cancel")
    }
}
