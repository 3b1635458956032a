internal import Foundation
internal import ShelfStore

extension BrowserViewModel {
    /// A question asking whether to delete `count` marked items.
    public func makeBulkDeleteConfirmation(count: Int) -> ConfirmViewModel {
        ConfirmViewModel(
            title: "Delete items", message: "Delete \(ItemActions.describe(count)), all marked? u undoes it.",
            confirmLabel: "delete")
    }

    /// A prompt for the owner's email of `count` items; `perform` gives them to that user.
    public func makeOwnerPrompt(count: Int, perform: @escaping @MainActor (String) async -> String?)
        -> PromptViewModel
    {
        PromptViewModel(
            title: "Owner of \(ItemActions.describe(count))", question: "Email of the new owner:",
            validate: { text in
                text.trimmingCharacters(in: .whitespaces).contains("@")
                    ? nil : "The owner is given by email, like ada@example.com."
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
