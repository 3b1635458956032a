import ShelfPresentation
import ShelfTerminal
import Testing

@testable import ShelfBrowser

/// The hints, headings and messages name the keys the file bound.
@Suite("Configuration file: the keys hints name")
struct ConfigurationHintTests {
    /// Hostile round 4: with yes and no swapped in the file, the delete dialog still said
    /// "n / Esc: cancel", and n deleted.
    @MainActor @Test func theConfirmHintNamesTheKeysInForce() {
        defer { Theme.keys = .defaults }
        #expect(Theme.keyHint(.confirm, "yes") == "y / Enter")
        #expect(Theme.keyHint(.confirm, "no") == "n / Esc")
        Theme.keys = BrowserConfiguration.parse("[keys.confirm]\nyes = [\"n\"]\nno = [\"y\", \"ctrl-g\"]").keys
        #expect(Theme.keyHint(.confirm, "yes") == "n")
        #expect(Theme.keyHint(.confirm, "no") == "y / Ctrl-G")
        Theme.keys = BrowserConfiguration.parse("[keys.confirm]\nno = [\"q\"]").keys
        #expect(Theme.keyHint(.confirm, "no") == "q")
    }

    /// Hostile round 4: the editor's foot, the prompts and the users and views lists named
    /// the default keys after the configuration file rebound them.
    @MainActor @Test func everyHintNamesTheKeysInForce() {
        defer { Theme.keys = .defaults }
        #expect(Theme.keyNames == .defaults, "no file: every hint keeps its default words")
        #expect(PromptViewModel.hints(keys: Theme.keyNames) == "Enter: apply    Esc: cancel")
        Theme.keys =
            BrowserConfiguration.parse(
                """
                [keys.editor]
                save = ["ctrl-w"]
                nextField = ["ctrl-n"]
                [keys.prompt]
                cancel = ["ctrl-g"]
                [keys.users]
                delete = ["x"]
                [keys.views]
                close = ["q"]
                [keys.user-form]
                save = ["ctrl-t"]
                """
            ).keys
        let keys = Theme.keyNames
        #expect(PromptViewModel.hints(keys: keys) == "Enter: apply    Ctrl-G: cancel")
        #expect(UserListViewModel.hints(keys: keys) == "a add · e edit · x remove · Enter their items · Esc back")
        #expect(SavedViewListViewModel.hints(keys: keys) == "Enter open · d delete · q close")
        #expect(UserEditorContent.hints(keys: keys) == "Tab next field · Ctrl-T save · Esc cancel")
        let editor = ItemEditorContent(mode: .create, values: [:], errors: [:], phase: .editing)
        #expect(
            editor.hint(focused: .notes, suggesting: false, keys: keys)
                == "Enter new line · Ctrl-W save · Ctrl-O $EDITOR · Ctrl-N next · Esc cancel")
    }

    /// Hostile round 12: the help's headings ("Item opened (Enter)", "Search field (/)", …),
    /// the configuration's messages ("an item opened (Enter)") and the hints below named the
    /// default keys once the file rebound them. Each names the key in force.
    @MainActor @Test func everyHeadingAndHintNamesTheKeyTheFileBound() throws {
        defer { Theme.keys = .defaults }
        let defaults = HelpViewModel(keys: .defaults).sections.map(\.title)
        for title in ["Item opened (Enter)", "Search field (/)", "Item editor (n, e)", "Users (U)", "Saved views (v)"] {
            #expect(defaults.contains(title), "\(title): \(defaults)")
        }
        #expect(defaults.contains("Help (?)"), "\(defaults)")
        let configuration = BrowserConfiguration.parse(
            """
            [keys.list]
            open = ["l"]
            search = ["ctrl-s"]
            new = ["a"]
            edit = ["E"]
            users = ["ctrl-u"]
            savedViews = ["ctrl-v"]
            help = ["f2"]
            retry = ["R"]
            [keys.prompt]
            accept = ["ctrl-y"]
            [keys.users]
            add = ["ctrl-a"]
            [keys.user-form]
            close = ["ctrl-q"]
            [keys.editor]
            nextField = ["ctrl-n"]
            """)
        #expect(configuration.problems == [], "\(configuration.problems)")
        let titles = HelpViewModel(keys: configuration.keys).sections.map(\.title)
        for title in [
            "Item opened (l)", "Search field (Ctrl-S)", "Item editor (a, E)", "Users (Ctrl-U)", "Saved views (Ctrl-V)",
            "Help (F2)",
        ] {
            #expect(titles.contains(title), "\(title): \(titles)")
        }
        #expect(!titles.contains { $0.contains("Enter") || $0.contains("(/)") || $0.contains("(?)") }, "\(titles)")
        // An opened item's key named in a message: no key, as none names it rightly whatever
        // the file binds.
        let shadowed = BrowserConfiguration.parse("[keys.detail]\nback = [\"j\"]\n")
        #expect(!shadowed.problems.contains { $0.message.contains("(Enter)") }, "\(shadowed.problems)")
        #expect(
            shadowed.problems.contains { $0.message.contains("an item opened on the whole screen") },
            "\(shadowed.problems)")

        Theme.keys = configuration.keys
        let keys = Theme.keyNames
        #expect(
            KeyHint.line(PromptViewModel.hintLine(suggesting: true, keys: keys))
                == "↑/↓ choose · Tab or Ctrl-Y take · Esc close the list")
        #expect(
            UserListViewModel.messageText(state: .empty("No users yet."), message: nil, demoCommand: nil, keys: keys)
                == "No users yet. Press Ctrl-A to add one.")
        let editor = ItemEditorContent(mode: .create, values: [:], errors: [:], phase: .editing)
        #expect(
            editor.hint(focused: .owner, suggesting: true, keys: keys)
                == "↑/↓ choose · Ctrl-N or Enter take · Ctrl-S save · Esc close the list")
    }
}
