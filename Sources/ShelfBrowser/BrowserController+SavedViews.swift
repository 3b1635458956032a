internal import ShelfPresentation
internal import ShelfReactive
internal import ShelfStore
internal import ShelfTerminal

extension BrowserController {
    /// Shows the saved-views picker; Enter on a view opens it in the list and closes the
    /// picker.
    func presentSavedViews() {
        let picker = SavedViewPickerController(viewModel: viewModel.makeSavedViewList(keys: Theme.keyNames))
        picker.onOpen = { [weak self] view in
            guard let self else { return }
            dismissModal()
            viewModel.open(view)
            render(viewModel.list.state.value)
        }
        present(picker)
    }

    /// Shows the prompt that saves the list's search and sort under a name; closes it once
    /// the view is saved, which is then the open view.
    func presentSaveViewPrompt() {
        let prompt = viewModel.makeSaveViewPrompt()
        present(SaveViewPromptController(viewModel: prompt))
        modalObservation = prompt.state.bind(during: lifetime) { [weak self] content in
            guard case .saved(let view) = content.phase, let self else { return }
            dismissModal()
            viewModel.didSave(view)
            render(viewModel.list.state.value)
        }
    }
}
