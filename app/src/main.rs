//! Entry point of the wasm page: install the panic hook and mount the app on `<body>`.

fn main() {
    #[cfg(target_arch = "wasm32")]
    {
        console_error_panic_hook::set_once();
        leptos::mount::mount_to_body(app::ui::App);
    }
}
