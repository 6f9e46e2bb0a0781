export interface Owner {
	email: string;
	firstName: string;
	lastName: string;
	password: string;
}

export function setupOwner(url: string, owner: Owner): Promise<string | undefined>;
export function login(url: string, owner: { email: string; password: string }): Promise<string | undefined>;
export function getWithCookie(
	url: string,
	pathname: string,
	cookie: string,
): Promise<{ status: number; contentType: string; body: any }>;
export function requestWithCookie(
	url: string,
	method: string,
	pathname: string,
	cookie: string,
	body?: unknown,
): Promise<{ status: number; body: any }>;
