internal import Foundation
internal import ShelfStore

extension BrowserViewModel {
    /// A question asking whether to delete `count` marked items, naming the undo key as `keys`
    /// names it.
    public func makeBulkDeleteConfirmation(count: Int, keys: KeyNames = .defaults) -> ConfirmViewModel {
        ConfirmViewModel(
            title: "Delete items",
            message: "Delete \(ItemActions.describe(count)), all marked? \(keys("list.undo", "u")) undoes it.",
            confirmLabel: "delete")
    }

    /// A prompt for the owner's email of `count` items; `perform` gives them to that user.
    /// It completes names and emails as the editor's owner field does
    /// (`ItemEditorViewModel.ownerSuggestions(for:among:)`), from the users read when it opens.
    public func makeOwnerPrompt(count: Int, perform: @escaping @MainActor (String) async -> String?)
        -> PromptViewModel
    {
        let users = store.users
        return PromptViewModel(
            title: "Owner of \(ItemActions.describe(count))", question: "Email of the new owner:",
            validate: { text in
                text.trimmingCharacters(in: .whitespaces).contains("@")
                    ? nil : "The owner is given by email, like ada@example.com."
            },
            loadSuggester: {
                let all = try await users.users()
                return { text in
                    let typed = text.trimmingCharacters(in: .whitespaces).lowercased()
                    let (found, count) = ItemEditorViewModel.ownerMatches(for: text, among: all)
                    // The email typed whole: nothing left to complete.
                    if found.count == 1, found[0].email.lowercased() == typed { return [] }
                    return found.map {
                        PromptSuggestion(line: $0.name, detail: $0.email, value: $0.email, matchCount: count)
                    }
                }
            }, perform: perform)
    }

    /// A prompt for the priority (0 to 3) of `count` items; `perform` sets it.
    public func makePriorityPrompt(count: Int, perform: @escaping @MainActor (Int) async -> Void) -> PromptViewModel {
        PromptViewModel(
            title: "Priority of \(ItemActions.describe(count))", question: "Priority, 0 (none) to 3 (high):",
            validate: { text in
                Int(text.trimmingCharacters(in: .whitespaces)).map(Item.priorities.contains) == true
                    ? nil : "Priority is a number from 0 (none) to 3 (high)."
            },
            perform: { text in
                await perform(Int(text.trimmingCharacters(in: .whitespaces)) ?? 0)
                return nil
            })
    }
}
