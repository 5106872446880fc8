"""Where records come from: AoPS wiki pages (`aops`, through the polite `fetch`er), existing
datasets (`importer`) and seeded generators (`synthetic`). Each returns mathdata records."""
