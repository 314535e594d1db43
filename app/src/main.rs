//! Entry point of the wasm page: install the panic hook and mount the app. On a static page
//! (`#static`, written by `lkpx import`) the app is built behind it and shown when it has drawn
//! the same content (`web::reveal`); an address with a query (another view than the page's) gives
//! the page up at once.

fn main() {
    #[cfg(target_arch = "wasm32")]
    {
        console_error_panic_hook::set_once();
        match app::web::takeover_host() {
            Some(host) => leptos::mount::mount_to(host, app::ui::App).forget(),
            None => leptos::mount::mount_to_body(app::ui::App),
        }
    }
}
