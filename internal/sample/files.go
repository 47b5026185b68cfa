package sample

// Source files of the synthetic "recipe-box" project (Vite + React +
// TypeScript) that the sample's tool calls read and write.

const srcButtonTSX = `import type { ButtonHTMLAttributes } from 'react';
import './Button.css';

type Variant = 'primary' | 'secondary' | 'ghost';

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: Variant;
  size?: 'sm' | 'md' | 'lg';
}

export function Button({ variant = 'primary', size = 'md', className, ...rest }: ButtonProps) {
  const classes = ['btn', ` + "`btn--${variant}`, `btn--${size}`" + `, className].filter(Boolean).join(' ');
  return <button className={classes} {...rest} />;
}
`

const srcButtonCSS = `.btn {
  display: inline-flex;
  align-items: center;
  gap: 0.5rem;
  border: 0;
  border-radius: 0.5rem;
  font: inherit;
  cursor: pointer;
  transition: background-color 120ms ease-in-out;
}

.btn:focus-visible {
  outline: 3px solid var(--color-focus);
  outline-offset: 2px;
}

.btn--primary {
  background: var(--color-primary, #dc2626);
  color: #fff;
}

.btn--primary:hover {
  background: color-mix(in srgb, var(--color-primary) 60%, black);
}

.btn--secondary {
  background: transparent;
  color: var(--color-primary);
  box-shadow: inset 0 0 0 1px currentColor;
}

.btn:disabled {
  background: #9ca3af;
  cursor: not-allowed;
}

.btn--sm { padding: 0.25rem 0.625rem; font-size: 0.875rem; }
.btn--md { padding: 0.5rem 1rem; }
.btn--lg { padding: 0.75rem 1.25rem; font-size: 1.125rem; }
`

const srcTokensCSS = `:root {
  --color-bg: #ffffff;
  --color-surface: #f8fafc;
  --color-text: #0f172a;
  --color-muted: #64748b;
  --color-primary: #dc2626;
  --color-focus: #2563eb;
  --radius: 0.5rem;
  --font-sans: 'Inter', system-ui, sans-serif;
}

body {
  background: var(--color-bg);
  color: var(--color-text);
  font-family: var(--font-sans);
}
`

const srcHeaderTSX = `import { Link } from 'react-router-dom';
import { SearchBox } from './SearchBox';
import './Header.css';

export function Header() {
  return (
    <header className="header">
      <Link to="/" className="header__logo">Recipe Box</Link>
      <nav className="header__nav">
        <Link to="/recipes">Recipes</Link>
        <Link to="/favorites">Favorites</Link>
        <Link to="/settings">Settings</Link>
      </nav>
      <SearchBox />
    </header>
  );
}
`

const srcUseThemeTS = `import { useCallback, useEffect, useState } from 'react';

export type Theme = 'light' | 'dark';
const STORAGE_KEY = 'rb-theme';

function initialTheme(): Theme {
  const stored = localStorage.getItem(STORAGE_KEY);
  if (stored === 'light' || stored === 'dark') return stored;
  return window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

export function useTheme() {
  const [theme, setTheme] = useState<Theme>(initialTheme);

  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem(STORAGE_KEY, theme);
  }, [theme]);

  const toggle = useCallback(() => setTheme((t) => (t === 'dark' ? 'light' : 'dark')), []);
  return { theme, setTheme, toggle };
}
`

const srcThemeToggleTSX = `import { useTheme } from '../hooks/useTheme';
import sun from '../sun.svg';
import moon from '../moon.svg';

export function ThemeToggle() {
  const { theme, toggle } = useTheme();
  const next: string = theme === 'dark' ? 'light' : 'dark';
  return (
    <button type="button" className="theme-toggle" onClick={toggle} title="Toggle theme">
      <img src={theme === 'dark' ? sun : moon} alt="" width={16} height={16} />
      <span className="visually-hidden">Switch to {next} mode</span>
    </button>
  );
}
`

const srcThemeToggleCSS = `.theme-toggle {
  display: inline-grid;
  place-items: center;
  min-width: 44px;
  min-height: 44px;
  border: 0;
  border-radius: 999px;
  background: transparent;
  cursor: pointer;
}

.theme-toggle img {
  width: 20px;
  height: 20px;
}

.theme-toggle:hover {
  background: color-mix(in srgb, var(--color-text) 8%, transparent);
}
`

const srcIndexHTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <link rel="icon" type="image/svg+xml" href="/favicon.svg" />
    <meta name="viewport" content="width=device-width, initial-scale=1.0" />
    <title>Recipe Box</title>
  </head>
  <body>
    <div id="root"></div>
    <script type="module" src="/src/main.tsx"></script>
  </body>
</html>
`

const srcTestSetupTS = `import '@testing-library/jest-dom/vitest';
import { afterEach } from 'vitest';
import { cleanup } from '@testing-library/react';

afterEach(() => {
  cleanup();
  localStorage.clear();
});
`

const srcSettingsTSX = `import { useState } from 'react';
import { Button } from '../components/Button';
import { useUnits } from '../hooks/useUnits';

export function SettingsPage() {
  const { units, setUnits } = useUnits();
  const [saved, setSaved] = useState(false);

  return (
    <main className="page settings">
      <h1>Settings</h1>
      <label className="field">
        <span>Units</span>
        <select value={units} onChange={(e) => setUnits(e.target.value as 'metric' | 'imperial')}>
          <option value="metric">Metric</option>
          <option value="imperial">Imperial</option>
        </select>
      </label>
      <Button onClick={() => setSaved(true)}>Save</Button>
      {saved && <p role="status">Saved.</p>}
    </main>
  );
}
`

const srcChangelogMD = `# Changelog

## 1.3.2 - 2026-05-02

- Fix the ingredient scaler rounding 1/3 cups to 0.33.
- Show cooking time on recipe cards.

## 1.3.1 - 2026-04-18

- Favorites survive a reload again.
`

const srcPackageJSON = `{
  "name": "recipe-box",
  "private": true,
  "version": "1.3.2",
  "type": "module",
  "scripts": {
    "dev": "vite",
    "build": "tsc -b && vite build",
    "preview": "vite preview",
    "test": "vitest run",
    "lint": "eslint ."
  },
  "dependencies": {
    "@tanstack/react-query": "^5.62.0",
    "react": "^19.1.0",
    "react-dom": "^19.1.0",
    "react-router-dom": "^7.6.0"
  },
  "devDependencies": {
    "@testing-library/jest-dom": "^6.6.3",
    "@testing-library/react": "^16.3.0",
    "@types/react": "^19.1.2",
    "@types/react-dom": "^19.1.2",
    "@vitejs/plugin-react": "^4.4.1",
    "eslint": "^9.27.0",
    "jsdom": "^26.1.0",
    "typescript": "~5.8.3",
    "vite": "^6.3.5",
    "vitest": "^3.1.4"
  }
}
`

const srcRecipesRouteTS = `import { Router } from 'express';
import { db } from '../db';

export const recipes = Router();

recipes.get('/', async (req, res) => {
  const tag = typeof req.query.tag === 'string' ? req.query.tag : undefined;
  const rows = tag
    ? await db.all('SELECT * FROM recipes WHERE id IN (SELECT recipe_id FROM recipe_tags WHERE tag = ?) ORDER BY created_at DESC', tag)
    : await db.all('SELECT * FROM recipes ORDER BY created_at DESC');
  res.json({ items: rows });
});

recipes.get('/all', async (_req, res) => {
  res.json(await db.all('SELECT * FROM recipes'));
});

recipes.get('/:id', async (req, res) => {
  const row = await db.get('SELECT * FROM recipes WHERE id = ?', req.params.id);
  if (!row) return res.status(404).json({ error: 'not found' });
  res.json(row);
});
`

const srcRecipesAPITS = `export interface Recipe {
  id: string;
  title: string;
  minutes: number;
  imageUrl: string;
  tags: string[];
  createdAt: string;
}

export async function fetchRecipes(tag?: string): Promise<Recipe[]> {
  const url = tag ? ` + "`/api/recipes?tag=${encodeURIComponent(tag)}`" + ` : '/api/recipes';
  const res = await fetch(url);
  if (!res.ok) throw new Error(` + "`GET ${url} failed: ${res.status}`" + `);
  const body = await res.json();
  return body.items;
}
`

const srcRecipesPageTSX = `import { useEffect, useState } from 'react';
import { fetchRecipes, type Recipe } from '../api/recipes';
import { RecipeCard } from '../components/RecipeCard';
import { TagFilter } from '../components/TagFilter';

export function RecipesPage() {
  const [tag, setTag] = useState<string>();
  const [recipes, setRecipes] = useState<Recipe[]>([]);

  useEffect(() => {
    fetchRecipes(tag).then(setRecipes);
  }, [tag]);

  return (
    <main className="page recipes">
      <TagFilter value={tag} onChange={setTag} />
      <ul className="recipe-grid">
        {recipes.map((r) => (
          <li key={r.id}>
            <RecipeCard recipe={r} />
          </li>
        ))}
      </ul>
    </main>
  );
}
`

const srcSchemaSQL = `CREATE TABLE recipes (
  id TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  minutes INTEGER NOT NULL,
  image_url TEXT NOT NULL,
  created_at TEXT NOT NULL
);

CREATE TABLE recipe_tags (
  recipe_id TEXT NOT NULL REFERENCES recipes(id) ON DELETE CASCADE,
  tag TEXT NOT NULL,
  PRIMARY KEY (recipe_id, tag)
);
`

const srcAPIDocsMD = `# HTTP API

All endpoints live under ` + "`/api`" + ` and return JSON.

## GET /api/recipes

Returns every recipe, newest first. Optional query parameter ` + "`tag`" + `.

Response: ` + "`{ \"items\": Recipe[] }`" + `

## GET /api/recipes/all

Legacy: returns a bare array of every recipe.

## GET /api/recipes/:id

Returns one recipe or 404.
`

const srcServiceWorkerJS = `/* Recipe Box service worker: offline shell + image cache. */
const SHELL = 'rb-shell-v3';
const IMAGES = 'rb-images-v1';
const SHELL_FILES = ['/', '/index.html', '/favicon.svg', '/manifest.webmanifest'];

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(SHELL).then((c) => c.addAll(SHELL_FILES)));
  self.skipWaiting();
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys().then((keys) =>
      Promise.all(keys.filter((k) => k !== SHELL && k !== IMAGES).map((k) => caches.delete(k))),
    ),
  );
  self.clients.claim();
});

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (url.pathname.startsWith('/api/')) return;
  if (event.request.destination === 'image') {
    event.respondWith(
      caches.open(IMAGES).then(async (cache) => {
        const hit = await cache.match(event.request);
        if (hit) return hit;
        const res = await fetch(event.request);
        if (res.ok) cache.put(event.request, res.clone());
        return res;
      }),
    );
    return;
  }
  event.respondWith(caches.match(event.request).then((hit) => hit ?? fetch(event.request)));
});

self.addEventListener('message', (event) => {
  if (event.data?.type === 'theme') {
    // The theme is applied by the page; nothing to cache here.
  }
});
`

const srcGitignore = `node_modules
dist
*.local
.env
coverage
`
