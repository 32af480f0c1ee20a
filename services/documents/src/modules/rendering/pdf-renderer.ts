import { AppError } from '@invoicing/service-kit';
import type { Browser, Page } from 'playwright-core';
import type { PaperSize } from './invoice-view.domain.ts';

/** One document to print into a page that holds the shell already. */
export interface PrintJob {
  title: string;
  /** BCP 47: the document's language, which the tagged PDF declares (PDF/UA, screen readers). */
  lang: string;
  /** CSS for this document alone (its colours, its paper). */
  style: string;
  /** The `<body>` content: escaped HTML. */
  body: string;
  paper: PaperSize;
}

/** Prints documents to PDF bytes. */
export interface PdfRenderer {
  render: (job: PrintJob) => Promise<Buffer>;
  /** Launches the browser and opens the pages ahead of the first request (a benchmark's warm-up; the service launches on its first PDF). */
  warm: () => Promise<void>;
  close: () => Promise<void>;
}

export interface ChromiumPdfRendererOptions {
  executablePath: string;
  /**
   * The HTML every page loads once (fonts, stylesheet), with an empty body and a
   * `<style id="document-style">` that each job fills.
   */
  shellHtml: string;
  /** Pages kept open and reused; renders beyond it wait for a free page. */
  pagePoolSize: number;
  /** Longest a single render may take before its page is discarded. */
  renderTimeoutMs: number;
  onError?: (error: unknown, context: string) => void;
  /** Seconds one successful render took on its page, not counting the wait for a free page. */
  onRendered?: (seconds: number) => void;
}

// The sandbox needs user namespaces that containers and root do not offer. What the browser
// loads is our own escaped HTML with scripts off and the network cut (see `newPage`), so the
// sandbox is not the only wall. `--single-process` (@sparticuz's own flags) is left out: with it,
// closing a page's context takes the whole browser down.
const LAUNCH_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-extensions',
  '--font-render-hinting=none',
  '--mute-audio',
];

const LAUNCH_TIMEOUT_MS = 30_000;
/** How soon a client may retry a PDF whose browser did not start: the next render launches again. */
const LAUNCH_RETRY_AFTER_S = '5';
// A page's renderer numbers DOM nodes with a counter that only grows, and the tagged PDF carries
// those numbers as 8-digit ids; a page is retired long before it could reach 9 digits.
const RENDERS_PER_PAGE = 2_000;
const WARM_UP_JOB: PrintJob = { title: 'warm-up', lang: 'en', style: '', body: '<p>warm-up</p>', paper: 'A4' };

/** The parts of the DOM a job touches (the service's TypeScript has no DOM types). */
interface ShellDocument {
  title: string;
  documentElement: { lang: string };
  body: { innerHTML: string };
  fonts: { ready: Promise<unknown> };
  getElementById: (id: string) => { textContent: string | null } | null;
}

/** Runs inside the page: swaps the job into the shell and resolves once its fonts are ready. */
const fillShell = async ({ title, lang, style, body }: Omit<PrintJob, 'paper'>): Promise<void> => {
  const { document } = globalThis as unknown as { document: ShellDocument };
  document.documentElement.lang = lang;
  document.title = title;
  document.getElementById('document-style')!.textContent = style;
  document.body.innerHTML = body;
  await document.fonts.ready;
};

const withTimeout = <T>(work: Promise<T>, ms: number): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`PDF render took longer than ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
};

/**
 * One Chromium per process, launched by the first render (an idle service holds no browser: it
 * costs several hundred MB) and shared by the renders that arrive while it starts, with a small
 * pool of pages reused from render to render (a fresh page per render costs several times the
 * render). A browser that cannot start fails the renders waiting on it with a 503 `unavailable`,
 * and the next render tries again. A page that fails or crashes is closed and replaced; a browser
 * that dies is launched again on the next render.
 *
 * The page pool is hand-made rather than generic-pool's (3.9.0), which is worse at exactly this:
 * when its factory's create rejects, it keeps every waiting acquire pending and calls create again
 * at once (`_createResource` → `factoryCreateError` → `_dispense`), so a browser that cannot start
 * would become a loop of launches (or, failing without I/O, a microtask loop) while renders hang
 * until an acquire timeout, instead of all failing with one 503 and the next render trying again;
 * and its `drain` serves the waiting acquires rather than failing them when the service closes.
 */
export const createChromiumPdfRenderer = ({ executablePath, shellHtml, pagePoolSize, renderTimeoutMs, onError = () => {}, onRendered = () => {} }: ChromiumPdfRendererOptions): PdfRenderer => {
  let browser: Promise<Browser> | undefined;
  let closed = false;
  /** Pages of the current browser, busy or idle, with the renders each has done. */
  const pages = new Map<Page, number>();
  const idle: Page[] = [];
  /** Renders waiting for a page, first come first served. */
  const waiting: { resolve: (page: Page) => void; reject: (error: unknown) => void }[] = [];
  let opening = 0;

  const startBrowser = async (): Promise<Browser> => {
    // Imported here, not at the top: only a process that prints loads Playwright.
    const { chromium } = await import('playwright-core');
    return chromium.launch({
      executablePath,
      args: LAUNCH_ARGS,
      headless: true,
      timeout: LAUNCH_TIMEOUT_MS,
      // The host owns signals: Playwright's own SIGINT handler would exit the whole process (code 130)
      // before the other services drain. The browser is closed when the app closes.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
  };

  /** One launch, which every render arriving meanwhile awaits (`browser ??= launch()`). */
  const launch = (): Promise<Browser> => {
    const launching = startBrowser().then(
      (launched) => {
        launched.on('disconnected', () => {
          if (browser === launching) browser = undefined;
          // Its pages died with it: renders on them fail and the next ones open pages on a new browser.
          pages.clear();
          idle.length = 0;
        });
        return launched;
      },
      (error: unknown) => {
        // Forgotten, so the next render launches again; the cause goes to the log, not to the client.
        if (browser === launching) browser = undefined;
        onError(error, 'launching Chromium');
        throw new AppError('unavailable', 'Chromium could not be started to print this PDF; try again shortly.', {
          headers: { 'retry-after': LAUNCH_RETRY_AFTER_S },
        });
      },
    );
    return launching;
  };

  const openPageInSlot = async (): Promise<Page> => {
    opening += 1;
    try {
      browser ??= launch();
      const context = await (await browser).newContext({ javaScriptEnabled: false, offline: true });
      try {
        const page = await context.newPage();
        await page.setContent(shellHtml, { waitUntil: 'load', timeout: renderTimeoutMs });
        pages.set(page, 0);
        return page;
      } catch (error) {
        await context.close().catch(() => {});
        throw error;
      }
    } finally {
      opening -= 1;
    }
  };

  /**
   * A page in a free slot of the pool. When none could be opened and no page is left to be handed
   * back, the renders queued behind it would wait forever: they fail with the same reason (a
   * browser that did not start), and the next render tries again.
   */
  const openPage = async (): Promise<Page> => {
    try {
      return await openPageInSlot();
    } catch (error) {
      if (pages.size + opening === 0) for (const waiter of waiting.splice(0)) waiter.reject(error);
      throw error;
    }
  };

  const acquire = async (): Promise<Page> => {
    const page = idle.pop();
    if (page) return page;
    if (pages.size + opening < pagePoolSize) return openPage();
    return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
  };

  const handOver = (page: Page) => {
    const next = waiting.shift();
    if (next) next.resolve(page);
    else idle.push(page);
  };

  const discard = (page: Page) => {
    pages.delete(page);
    void page.context().close().catch(() => {});
    const next = waiting.shift();
    if (!next) return;
    if (closed) return next.reject(new Error('The PDF renderer is closed'));
    // The waiter gets a new page, or the reason there is none (a browser that cannot start).
    openPage().then(next.resolve, (error: unknown) => {
      onError(error, 'opening a replacement page');
      next.reject(error);
    });
  };

  const release = (page: Page, healthy: boolean) => {
    const renders = (pages.get(page) ?? RENDERS_PER_PAGE) + 1;
    if (healthy && !closed && renders < RENDERS_PER_PAGE && !page.isClosed()) {
      pages.set(page, renders);
      handOver(page);
    } else {
      discard(page);
    }
  };

  const print = async (page: Page, { paper, ...content }: PrintJob): Promise<Buffer> => {
    await page.evaluate(fillShell, content);
    return page.pdf({ format: paper, printBackground: true, preferCSSPageSize: true, tagged: true, outline: false });
  };

  /** Prints on a page that is then handed back, or discarded if anything went wrong on it. */
  const printThenRelease = async (page: Page, job: PrintJob): Promise<Buffer> => {
    let healthy = false;
    try {
      const pdf = await withTimeout(print(page, job), renderTimeoutMs);
      healthy = true;
      return pdf;
    } catch (error) {
      onError(error, 'rendering a PDF');
      throw error;
    } finally {
      release(page, healthy);
    }
  };

  return {
    render: async (job) => {
      if (closed) throw new Error('The PDF renderer is closed');
      const page = await acquire();
      const startedAt = performance.now();
      const pdf = await printThenRelease(page, job);
      onRendered((performance.now() - startedAt) / 1000);
      return pdf;
    },
    warm: async () => {
      if (closed) throw new Error('The PDF renderer is closed');
      // A page's first print starts its renderer process: done here, it is not a customer's wait.
      const opened = await Promise.all(Array.from({ length: Math.max(0, pagePoolSize - pages.size - opening) }, () => openPage()));
      await Promise.all(opened.map((page) => printThenRelease(page, WARM_UP_JOB)));
    },
    close: async () => {
      closed = true;
      for (const waiter of waiting.splice(0)) waiter.reject(new Error('The PDF renderer is closed'));
      const running = browser;
      browser = undefined;
      pages.clear();
      idle.length = 0;
      if (running) await (await running.catch(() => undefined))?.close().catch(() => {});
    },
  };
};
