/**
 * The snippet sets this process is building right now. A set in status `building` is otherwise
 * one a job left when its process died, which sweep.ts removes between jobs; a set named here
 * is alive whoever builds it, and is left alone.
 */
const building = new Set<number>()

export function startedBuilding(setPk: number): void {
  building.add(setPk)
}

export function endedBuilding(setPk: number): void {
  building.delete(setPk)
}

export function isBeingBuilt(setPk: number): boolean {
  return building.has(setPk)
}
