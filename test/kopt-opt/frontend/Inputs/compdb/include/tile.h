#pragma once
constexpr int kTile = TILE;
